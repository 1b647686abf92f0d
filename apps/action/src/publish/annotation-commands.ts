import type { CheckRunAnnotation } from "@reviewbot/github/render-annotations";
import { workflowCommand } from "./workflow-command.js";

/** GitHub shows at most 10 annotations of each type (error, warning, notice) per step. */
export const ANNOTATIONS_SHOWN_PER_TYPE = 10;

const COMMAND = { failure: "error", warning: "warning", notice: "notice" } as const;

/**
 * Annotations as workflow commands (`::error file=…,line=…,endLine=…,title=…::message`), at most
 * {@link ANNOTATIONS_SHOWN_PER_TYPE} of each type, most important first (the order given); the
 * rest are returned as `overflow`, for the step summary, so none is lost.
 */
export function annotationCommands(annotations: readonly CheckRunAnnotation[]): { commands: string[]; overflow: CheckRunAnnotation[] } {
  const shown = { failure: 0, warning: 0, notice: 0 };
  const commands: string[] = [];
  const overflow: CheckRunAnnotation[] = [];
  for (const annotation of annotations) {
    const level = annotation.annotation_level;
    if (shown[level] >= ANNOTATIONS_SHOWN_PER_TYPE) {
      overflow.push(annotation);
      continue;
    }
    shown[level] += 1;
    const columns = annotation.start_column === undefined ? {} : { col: annotation.start_column, endColumn: annotation.end_column ?? annotation.start_column };
    const properties = { file: annotation.path, line: annotation.start_line, endLine: annotation.end_line, ...columns, title: annotation.title };
    commands.push(workflowCommand(COMMAND[level], properties, annotation.message));
  }
  return { commands, overflow };
}
