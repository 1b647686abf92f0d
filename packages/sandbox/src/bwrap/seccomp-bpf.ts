import { CLONE3_SYSCALL, CLONE_NAMESPACE_FLAGS, CLONE_SYSCALL, DENIED_SYSCALLS, IOCTL_SYSCALL, TIOCSTI } from "../denied-syscalls.js";

// Classic BPF opcodes and seccomp constants (linux/filter.h, linux/seccomp.h, linux/audit.h).
const LD_ABS = 0x20;
const JEQ = 0x15;
const JGE = 0x35;
const JSET = 0x45;
const RET = 0x06;
const RET_KILL_PROCESS = 0x80000000;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
const AUDIT_ARCH_X86_64 = 0xc000003e;
const X32_SYSCALL_BIT = 0x40000000;
// Offsets into struct seccomp_data: nr, arch, then args[i] at 16 + 8i (low word first on x86_64).
const NR = 0;
const ARCH = 4;
const ARG0 = 16;
const ARG1 = 24;

type Target = number | "next" | "allow" | "eperm" | "enosys" | "kill";

interface Instruction {
  readonly code: number;
  readonly k: number;
  readonly jt?: Target;
  readonly jf?: Target;
}

/**
 * Compiles the sandbox's seccomp filter for bubblewrap's `--seccomp <fd>`: x86_64 only (other
 * architectures and the x32 ABI are refused), the denied system calls answer EPERM, clone3 ENOSYS,
 * clone with namespace flags EPERM, ioctl TIOCSTI EPERM, everything else is allowed.
 */
export function compileSeccompFilter(): Buffer {
  const denied = Object.values(DENIED_SYSCALLS).map((nr): Instruction => ({ code: JEQ, k: nr, jt: "eperm" }));
  const program: Instruction[] = [
    { code: LD_ABS, k: ARCH },
    { code: JEQ, k: AUDIT_ARCH_X86_64, jf: "kill" },
    { code: LD_ABS, k: NR },
    { code: JGE, k: X32_SYSCALL_BIT, jt: "eperm" },
    ...denied,
    { code: JEQ, k: CLONE3_SYSCALL, jt: "enosys" },
    { code: JEQ, k: CLONE_SYSCALL, jf: 2 },
    { code: LD_ABS, k: ARG0 },
    { code: JSET, k: CLONE_NAMESPACE_FLAGS, jt: "eperm", jf: "allow" },
    { code: JEQ, k: IOCTL_SYSCALL, jf: "allow" },
    { code: LD_ABS, k: ARG1 },
    { code: JEQ, k: TIOCSTI, jt: "eperm", jf: "allow" },
  ];
  const labels = {
    allow: program.length,
    eperm: program.length + 1,
    enosys: program.length + 2,
    kill: program.length + 3,
  } as const;
  program.push({ code: RET, k: RET_ALLOW }, { code: RET, k: RET_ERRNO | EPERM }, { code: RET, k: RET_ERRNO | ENOSYS }, { code: RET, k: RET_KILL_PROCESS });
  const buffer = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    const offset = (target: Target | undefined): number => {
      if (target === undefined || target === "next") return 0;
      const jump = typeof target === "number" ? target : labels[target] - index - 1;
      if (jump < 0 || jump > 255) throw new Error(`seccomp jump out of range at ${index}`);
      return jump;
    };
    buffer.writeUInt16LE(instruction.code, index * 8);
    buffer.writeUInt8(offset(instruction.jt), index * 8 + 2);
    buffer.writeUInt8(offset(instruction.jf), index * 8 + 3);
    buffer.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  return buffer;
}
