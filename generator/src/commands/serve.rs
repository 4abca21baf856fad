//! `receipts serve [--port N] [--open]`.

use std::path::PathBuf;

use crate::build::BuildOptions;
use crate::serve::{serve, ServeOptions};

use super::{Failure, Out};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The directory holding experiments/, showcase/ and docs/.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Where the site is built.
    #[arg(long, default_value = "site")]
    pub out: PathBuf,
    /// The port to listen on; 0 picks a free one.
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// The address to listen on. Only this machine can reach the default.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Open the site in the default browser.
    #[arg(long)]
    pub open: bool,
    /// For sites of many runs: publish run records gzipped
    /// (data/<experiment>/runs/<run>.json.gz) and compact run pages, whose
    /// replay the browser draws from the record.
    #[arg(long)]
    pub compress_records: bool,
}

pub fn run(args: Args, _out: Out) -> Result<(), Failure> {
    let build = BuildOptions {
        root: args.root,
        out: args.out,
        quiet: true,
        templates: None,
        background_cleanup: true,
        cache: Some(Default::default()),
        compress_records: args.compress_records,
        in_place: None,
    };
    serve(ServeOptions {
        build,
        host: args.host,
        port: args.port,
        open: args.open,
    })?;
    Ok(())
}
