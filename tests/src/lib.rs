//! Test harness for the end-to-end suite: starts `specpress serve` and locates the real bump-cli.
