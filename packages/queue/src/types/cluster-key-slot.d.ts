// cluster-key-slot (ioredis's own dependency) ships no types: its default export is the slot of a key.
declare module "cluster-key-slot" {
  // eslint-disable-next-line no-restricted-syntax -- the module's own shape (CommonJS `module.exports = generate`)
  export default function calculateSlot(key: string | Buffer): number;
}
