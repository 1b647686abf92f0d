import type { KnownFinding } from "./suite-manifest.js";

/** A finding the model made, placed on the diff or not (an unplaced one has no side: it is taken as RIGHT). */
export interface ModelFinding {
  readonly path: string;
  readonly side: "RIGHT" | "LEFT";
  readonly startLine: number;
  readonly line: number;
  readonly placed: boolean;
}

export interface MatchOptions {
  /** Lines either side of a known range that still count as on it (default 3). */
  readonly window: number;
  /** The PR's renames, base path → head path: a path on either side is compared by its head path. */
  readonly renames: ReadonlyMap<string, string>;
}

/** Pairs of (finding index, known index), each finding and each known in at most one pair. */
export type Matching = readonly (readonly [number, number])[];

/** Candidate pairs per finding: the known indices on the same side and file (renames followed) whose range, widened by the window, overlaps the finding's. */
export function windowCandidates(findings: readonly ModelFinding[], known: readonly KnownFinding[], options: MatchOptions): number[][] {
  const headPath = (path: string): string => options.renames.get(path) ?? path;
  return findings.map((finding) =>
    known.flatMap((target, index) =>
      target.side === finding.side &&
      headPath(target.path) === headPath(finding.path) &&
      finding.startLine - options.window <= target.endLine &&
      finding.line + options.window >= target.startLine
        ? [index]
        : [],
    ),
  );
}

/**
 * Matches findings to known findings one to one, as many pairs as possible (a maximum bipartite
 * matching, Kuhn's augmenting paths) over the window candidates. Two findings on one known: one
 * pairs, the other is a false positive. One finding spanning two knowns: it pairs with one, the
 * other known stays missed unless another finding takes it.
 */
export function matchFindings(findings: readonly ModelFinding[], known: readonly KnownFinding[], options: MatchOptions): Matching {
  return maximumMatching(windowCandidates(findings, known, options), known.length);
}

/** A maximum one-to-one matching over `edges` (per finding, the known indices it may pair with). */
export function maximumMatching(edges: readonly (readonly number[])[], knownCount: number): Matching {
  const ownerOf = new Array<number | undefined>(knownCount).fill(undefined);
  const augment = (finding: number, seen: Set<number>): boolean => {
    for (const target of edges[finding] ?? []) {
      if (seen.has(target)) continue;
      seen.add(target);
      const owner = ownerOf[target];
      if (owner === undefined || augment(owner, seen)) {
        ownerOf[target] = finding;
        return true;
      }
    }
    return false;
  };
  edges.forEach((_edges, index) => augment(index, new Set()));
  return ownerOf.flatMap((finding, target) => (finding === undefined ? [] : [[finding, target] as const]));
}
