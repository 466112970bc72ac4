//! `ehir dot IN [--phase structured|flat|itanium|msvc] [--abi itanium|msvc] [--function F]
//! [-o OUT]`: lowers the input to the phase (default: leave it where it is) and writes the
//! `.dot` picture of its
//! functions ([`crate::dot_graph`]); when OUT ends in `.svg` or `.png`, the picture is
//! rendered with Graphviz `dot` (found like llc: `--graphviz PATH`, then `EHIR_DOT`, then
//! `dot` on `PATH`; Debian package `graphviz`). Errors leave no output file. A C++ input
//! is compiled for the target of the phase's ABI (`--phase msvc`: `x86_64-pc-windows-msvc`),
//! else of `--abi` (default itanium: `x86_64-linux-gnu`).

use crate::dot_graph::{DotOptions, module_dot};
use crate::input::{Reported, Source};
use crate::output::write_output;
use anyhow::{Context, Result, bail};
use ehir_core::{Diagnostic, Diagnostics, Loc, Phase};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(clap::Args)]
pub struct DotArgs {
    /// Input file (`.cir`, or `.cpp` for the C++ front end).
    pub input: PathBuf,
    /// Lower to this phase first: structured, flat, itanium or msvc (default: the input's).
    #[arg(long, value_name = "PHASE")]
    pub phase: Option<String>,
    /// The EH ABI whose target a `.cpp` input is compiled for (default: the ABI of
    /// `--phase` when it names one, else itanium).
    #[arg(long, value_enum)]
    pub abi: Option<crate::build::AbiArg>,
    /// Draw only this function.
    #[arg(long, value_name = "F")]
    pub function: Option<String>,
    /// Output file: `.dot` text, or `.svg`/`.png` rendered with Graphviz (default: `.dot` on
    /// stdout).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// The Graphviz `dot` executable (default: `EHIR_DOT`, then `dot` on PATH).
    #[arg(long, value_name = "PATH")]
    pub graphviz: Option<PathBuf>,
    /// Blocks with more ops than this are abbreviated.
    #[arg(long, value_name = "N", default_value_t = DotOptions::default().max_ops)]
    pub max_ops: usize,
}

/// The Graphviz output format OUT's extension asks for, if any.
fn rendered_format(output: Option<&Path>) -> Option<&'static str> {
    let ext = output?.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "svg" => Some("svg"),
        "png" => Some("png"),
        _ => None,
    }
}

/// Finds Graphviz `dot`: the explicit path, `EHIR_DOT`, then `dot` on PATH.
fn find_graphviz(explicit: Option<&Path>) -> Result<PathBuf> {
    let check = |p: PathBuf, from: &str| -> Result<PathBuf> {
        let found = if p.components().count() == 1 && !p.is_absolute() {
            ehir_llvm::toolchain::search_path(&p.to_string_lossy())
        } else {
            Some(p.clone()).filter(|p| p.is_file())
        };
        found.with_context(|| {
            format!(
                "{} (from {from}) does not exist or is not executable",
                p.display()
            )
        })
    };
    if let Some(p) = explicit {
        return check(p.to_path_buf(), "--graphviz");
    }
    if let Some(p) = std::env::var_os("EHIR_DOT").filter(|v| !v.is_empty()) {
        return check(PathBuf::from(p), "EHIR_DOT");
    }
    match ehir_llvm::toolchain::search_path("dot") {
        Some(p) => Ok(p),
        None => bail!(
            "Graphviz dot not found (looked for dot on PATH); install the Debian package `graphviz` (apt-get install graphviz), or pass --graphviz PATH or set EHIR_DOT"
        ),
    }
}

/// Runs `dot -TFORMAT` on the text and returns its output.
fn render(tool: &Path, format: &str, text: &str) -> Result<Vec<u8>> {
    let command = format!("{} -T{format}", tool.display());
    let mut child = Command::new(tool)
        .arg(format!("-T{format}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run {command}"))?;
    let mut stdin = child.stdin.take().context("no stdin for dot")?;
    let input = text.as_bytes().to_vec();
    // Write from another thread so a large picture cannot deadlock on full pipes.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child
        .wait_with_output()
        .with_context(|| format!("cannot run {command}"))?;
    let written = writer
        .join()
        .map_err(|_| anyhow::anyhow!("{command}: writer failed"))?;
    if !out.status.success() {
        bail!(
            "{command} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim_end()
        );
    }
    written.with_context(|| format!("cannot write to {command}"))?;
    Ok(out.stdout)
}

pub fn dot_command(args: &DotArgs) -> Result<i32> {
    let source = Source::read(&args.input)?;
    let phase = match args.phase.as_deref() {
        None => None,
        Some(name) => match Phase::from_name(name) {
            Some(p) => Some(p),
            None => bail!("unknown phase '{name}' (expected structured, flat, itanium or msvc)"),
        },
    };
    let format = rendered_format(args.output.as_deref());
    // Find the renderer before the (possibly long) lowering, so a missing tool fails fast.
    let tool = match format {
        Some(_) => Some(find_graphviz(args.graphviz.as_deref())?),
        None => None,
    };
    let abi = crate::build::front_end_abi(args.abi, phase)?;
    let module = match phase {
        None => source.load_for(abi)?,
        Some(p) => crate::build::load_lowered(&source, abi, p)?,
    };
    let options = DotOptions {
        max_ops: args.max_ops,
        ..DotOptions::default()
    };
    let Some(text) = module_dot(&module, args.function.as_deref(), options) else {
        let name = args.function.as_deref().unwrap_or_default();
        source.report(&Diagnostics(vec![Diagnostic::error(
            Loc::NONE,
            format!(
                "no function definition @{} in the input",
                name.trim_start_matches('@')
            ),
        )]));
        return Err(Reported.into());
    };
    let bytes = match (format, tool) {
        (Some(format), Some(tool)) => render(&tool, format, &text)?,
        _ => text.into_bytes(),
    };
    write_output(args.output.as_deref(), |w| {
        w.write_all(&bytes)?;
        Ok(())
    })?;
    Ok(0)
}
