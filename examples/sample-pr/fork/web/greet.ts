export function greet(name: string): string {
  return "Hello, " + name;
}

export function legacy(x: any) {
  return x;
}

export function shout(name: string) {
  var loud = name.toUpperCase();
  if (loud == "") {
    debugger;
  }
  return loud;
}
