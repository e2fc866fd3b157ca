import ts from 'typescript';
import { relative } from 'node:path';

/**
 * The optional properties of a package's public input types that do not accept `undefined` under
 * `exactOptionalPropertyTypes` (`retry?: RetryPolicy` instead of `retry?: RetryPolicy | undefined`): a caller's
 * `{ token: process.env.TOKEN }` does not compile against them (TS2379).
 *
 * Inputs are what a caller hands over: the parameters of the exported functions and classes (constructors and
 * methods), of the methods of exported types (a context or a handle the caller calls), and the exported types named
 * like options (`...Options`, `...Spec`, `...Policy`, `...Selector`, `...Request`, `...Query`); from each, the
 * object types of its properties, as deep as they go. A property holding a function is not followed: its parameters
 * are what the package hands to the caller. Types declared outside `root` (Node's, zod's, undici's) are not entered.
 */
export function optionalPropertiesRefusingUndefined(root: string, entries: readonly string[], options: ts.CompilerOptions): { refusing: string[]; checked: number } {
  const program = ts.createProgram([...entries], { ...options, exactOptionalPropertyTypes: true, noEmit: true });
  const checker = program.getTypeChecker();
  const undefinedType = checker.getUndefinedType();
  const refusing = new Set<string>();
  const seen = new Set<ts.Type>();
  let checked = 0;

  const declaredHere = (node: ts.Node) => {
    const file = node.getSourceFile().fileName;
    return !file.includes('/node_modules/') && !relative(root, file).startsWith('..');
  };
  const isFunction = (type: ts.Type) => type.getCallSignatures().length > 0 && type.getProperties().length === 0;
  // Under exactOptionalPropertyTypes an optional property's type carries the checker's `missing` marker, an undefined
  // that is not `undefined` itself; only a declared `| undefined` (or unknown, any) puts undefined in.
  const acceptsUndefined = (type: ts.Type) =>
    (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0 || type === undefinedType || (type.isUnion() && type.types.includes(undefinedType));

  const walk = (type: ts.Type, where: string, depth: number): void => {
    if (depth > 8 || seen.has(type)) return;
    seen.add(type);
    if (type.isUnion()) return type.types.forEach((member) => walk(member, where, depth));
    if (checker.isArrayType(type) || checker.isTupleType(type)) return checker.getTypeArguments(type as ts.TypeReference).forEach((element) => walk(element, `${where}[]`, depth + 1));
    if (!(type.flags & ts.TypeFlags.Object) && !type.isIntersection()) return;
    if (isFunction(type)) return;
    // A mapped type (Partial<X>, Omit<X, K>) is declared in TypeScript's lib; its properties are X's, judged below.
    const mapped = ((type as ts.ObjectType).objectFlags & ts.ObjectFlags.Mapped) !== 0;
    const declarations = type.getSymbol()?.getDeclarations() ?? type.aliasSymbol?.getDeclarations() ?? [];
    if (!mapped && declarations.length > 0 && !declarations.some(declaredHere)) return;
    for (const property of checker.getPropertiesOfType(type)) {
      const propertyDeclarations = property.getDeclarations() ?? [];
      if (propertyDeclarations.length > 0 && !propertyDeclarations.some(declaredHere)) continue;
      const propertyType = checker.getTypeOfSymbol(property);
      if (property.flags & ts.SymbolFlags.Optional) {
        checked += 1;
        if (!acceptsUndefined(propertyType)) {
          const at = propertyDeclarations[0];
          const place = at ? `${relative(root, at.getSourceFile().fileName)}:${at.getSourceFile().getLineAndCharacterOfPosition(at.getStart()).line + 1}` : '?';
          refusing.add(`${where}.${property.name} (${place})`);
        }
      }
      if (property.flags & ts.SymbolFlags.Method) continue;
      walk(propertyType, `${where}.${property.name}`, depth + 1);
    }
  };

  const walkParameters = (signatures: readonly ts.Signature[], where: string) => {
    for (const signature of signatures) {
      for (const parameter of signature.getParameters()) walk(checker.getTypeOfSymbol(parameter), `${where}(${parameter.name})`, 0);
    }
  };

  const isPublic = (declaration: ts.Declaration) =>
    (ts.getCombinedModifierFlags(declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0 && !ts.isPrivateIdentifier((declaration as ts.NamedDeclaration).name ?? declaration);

  /** The public methods of a type the caller calls: a class instance, a context, a handle. */
  const walkMethods = (type: ts.Type, where: string) => {
    for (const property of checker.getPropertiesOfType(type)) {
      if (!(property.flags & ts.SymbolFlags.Method)) continue;
      const declarations = property.getDeclarations() ?? [];
      if (!declarations.some(declaredHere) || !declarations.every(isPublic)) continue;
      walkParameters(checker.getTypeOfSymbol(property).getCallSignatures(), `${where}.${property.name}`);
    }
  };

  for (const entry of entries) {
    const source = program.getSourceFile(entry);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`${entry} is not a module of the program`);
    const name = relative(root, entry);
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const where = `${name}: ${exported.name}`;
      if (symbol.flags & ts.SymbolFlags.Value) {
        const type = checker.getTypeOfSymbol(symbol);
        walkParameters(type.getCallSignatures(), where);
        walkParameters(type.getConstructSignatures(), `new ${where}`);
        if (symbol.flags & ts.SymbolFlags.Class) walkMethods(checker.getDeclaredTypeOfSymbol(symbol), where);
      }
      if (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) {
        const type = checker.getDeclaredTypeOfSymbol(symbol);
        walkMethods(type, where);
        if (/(Options|Spec|Policy|Selector|Request|Query)$/.test(exported.name)) walk(type, where, 0);
      }
    }
  }
  return { refusing: [...refusing].sort(), checked };
}
