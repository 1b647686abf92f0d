/**
 * System calls no helper needs and an escape would: namespace creation and mounts (the kernel
 * attack surface behind most container escapes), keyrings, BPF, userfaultfd and io_uring (common
 * exploit primitives), tracing, module and kexec loading. Both engines deny the same set: the
 * container engine removes them from the engine's default profile, bubblewrap loads them as a
 * BPF deny list. Numbers are x86_64's (the only architecture the BPF filter admits).
 */
export const DENIED_SYSCALLS: Readonly<Record<string, number>> = {
  // namespaces and mounts
  unshare: 272,
  setns: 308,
  mount: 165,
  umount2: 166,
  pivot_root: 155,
  chroot: 161,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  mount_setattr: 442,
  // keyrings
  keyctl: 250,
  add_key: 248,
  request_key: 249,
  // exploit primitives
  bpf: 321,
  userfaultfd: 323,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  perf_event_open: 298,
  // tracing other processes
  ptrace: 101,
  process_vm_readv: 310,
  process_vm_writev: 311,
  // kernel and host state
  init_module: 175,
  finit_module: 313,
  delete_module: 176,
  kexec_load: 246,
  kexec_file_load: 320,
  reboot: 169,
  swapon: 167,
  swapoff: 168,
  acct: 163,
  syslog: 103,
  name_to_handle_at: 303,
  open_by_handle_at: 304,
};

/**
 * clone3 passes its flags in memory a filter cannot inspect, so it answers ENOSYS and the C
 * library falls back to clone, whose flags are checked (Docker's default profile does the same).
 */
export const CLONE3_SYSCALL = 435;
export const CLONE_SYSCALL = 56;
export const IOCTL_SYSCALL = 16;

/** CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET */
export const CLONE_NAMESPACE_FLAGS = 0x7e020000;

/** ioctl(fd, TIOCSTI, …) pushes bytes into a terminal's input queue (CVE-2017-5226 class). */
export const TIOCSTI = 0x5412;
