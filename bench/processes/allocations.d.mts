/** Starts counting now; the function it returns answers the bytes allocated since, as of a collection it forces. */
export function allocationCounter(): () => number;
