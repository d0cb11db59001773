//! `specpress`: wiring only. See the library for the commands.

// The global allocator of every Specpress binary (mimalloc), linked by each binary itself.
use specpress_alloc as _;

fn main() -> std::process::ExitCode {
    specpress::cli::Cli::from_env_and_args().run()
}
