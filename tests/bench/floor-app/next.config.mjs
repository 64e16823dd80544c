// The floor app (tests/bench/harness/floor.ts): a minimal Next app with nothing of ours in it,
// built into its own folder so it never touches the project's .next.
export default {
  distDir: process.env.FLOOR_DIST_DIR || '.next-floor',
  // As our own next.config: the header is not part of the floor.
  poweredByHeader: false,
}
