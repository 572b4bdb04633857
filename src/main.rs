use std::process::ExitCode;

use clap::Parser;
use lounge::cli::{run, Cli};

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("lounge: {e}");
            ExitCode::from(2)
        }
    }
}
