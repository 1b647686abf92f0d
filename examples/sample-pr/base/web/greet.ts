export function greet(name: string): string {
  return "Hello, " + name;
}

export function legacy(x: any) {
  return x;
}
