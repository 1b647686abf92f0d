import { describe, expect, it } from "vitest";
import { parseTreeEntry } from "./tree-entry.js";

const OID = "0123456789abcdef0123456789abcdef01234567";

describe("parseTreeEntry", () => {
  it.each([
    ["a file", `100644 blob ${OID}     120\tsrc/app.ts`, { type: "file", size: 120, name: "src/app.ts" }],
    ["an executable", `100755 blob ${OID}       7\tx.sh`, { type: "file", size: 7 }],
    ["a symlink (mode 120000, a blob all the same)", `120000 blob ${OID}      18\tlink`, { type: "symlink", size: 18 }],
    ["a submodule", `160000 commit ${OID}       -\tvendor/lib`, { type: "submodule", size: null }],
    ["a directory", `040000 tree ${OID}       -\tsrc`, { type: "dir", size: null }],
    ["a name with tabs and spaces", `100644 blob ${OID}       1\ta\tb c`, { name: "a\tb c" }],
  ])("reads %s", (_name, record, expected) => {
    const entry = parseTreeEntry(Buffer.from(record));
    expect({ ...entry, name: entry?.name.toString("utf8") }).toMatchObject({ oid: OID, ...expected });
  });

  it("keeps a name's bytes as they are", () => {
    const record = Buffer.concat([Buffer.from(`100644 blob ${OID}       1\t`), Buffer.from([0xff, 0x61])]);
    expect(parseTreeEntry(record)?.name).toEqual(Buffer.from([0xff, 0x61]));
  });

  it("gives up on a record without a name", () => {
    expect(parseTreeEntry(Buffer.from(`100644 blob ${OID} 1`))).toBeNull();
  });
});
