//! `specpress`: wiring only. See the library for the commands.

use clap::Parser;

fn main() -> std::process::ExitCode {
    specpress::cli::Cli::parse().run()
}
