use std::process::ExitCode;

use clap::Parser;
use lounge::cli::{run, Cli, CliError};

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        // The reader went away (`| head`): stop quietly, as a shell's SIGPIPE would.
        Err(CliError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(141),
        Err(e) => {
            eprintln!("lounge: {e}");
            ExitCode::from(2)
        }
    }
}
