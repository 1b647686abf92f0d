const UNITS = [
  [1024 * 1024 * 1024, "GiB"],
  [1024 * 1024, "MiB"],
  [1024, "KiB"],
] as const;

/** A byte count for a person: `2.3 MiB`, `256 MiB`, `12 KiB`, `700 bytes` (one decimal, none when whole). */
export function formatBytes(bytes: number): string {
  for (const [size, unit] of UNITS) {
    if (bytes >= size) {
      const value = Math.round((bytes / size) * 10) / 10;
      return `${Number.isInteger(value) ? String(value) : value.toFixed(1)} ${unit}`;
    }
  }
  return `${String(bytes)} bytes`;
}
