//! `cargo run -p specpress-diff --example diff -- PREVIOUS CURRENT [--format …] [--fail-on …]`:
//! the same command the `specpress diff` subcommand runs, standalone.

use clap::Parser;
// The allocator the `specpress` binary ships with.
use specpress_alloc as _;
use specpress_diff::cli::DiffCommand;

#[derive(Parser)]
#[command(name = "specpress-diff")]
struct Cli {
    #[command(flatten)]
    command: DiffCommand,
}

fn main() -> std::process::ExitCode {
    Cli::parse().command.run()
}
