//! `receipts serve [--port N] [--open]`.

use crate::build::BuildOptions;
use crate::serve::{serve, ServeOptions};

use super::build::SiteArgs;
use super::{Failure, Out};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub site: SiteArgs,
    /// The port to listen on; 0 picks a free one.
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// The address to listen on. Only this machine can reach the default.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// Open the site in the default browser.
    #[arg(long)]
    pub open: bool,
}

pub fn run(args: Args, _out: Out) -> Result<(), Failure> {
    let build = BuildOptions {
        root: args.site.root,
        out: args.site.out,
        quiet: true,
        templates: None,
        background_cleanup: true,
        cache: Some(Default::default()),
        compress_records: args.site.compress_records,
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
