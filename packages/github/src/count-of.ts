/** "1 warning", "2 warnings", "0 notices": a count with its noun in the right number. */
export function countOf(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
