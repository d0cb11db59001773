//! `specpress`: wiring only. See the library for the commands.

use specpress_alloc as _; // The global allocator (mimalloc): each binary links it itself.

fn main() -> std::process::ExitCode {
    specpress::cli::Cli::from_env_and_args().run()
}
