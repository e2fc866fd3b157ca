/** An injection token that remembers the type it stands for. A plain symbol, so ports need no DI library. */
export type Token<T> = symbol & { readonly __portType?: T };

export function token<T>(description: string): Token<T> {
  return Symbol.for(`flowgate.${description}`) as Token<T>;
}
