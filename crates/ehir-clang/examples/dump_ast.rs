//! Writes Clang's JSON AST of C++ files as the front end reads it (the command line of
//! `ehir_clang::clang::ast_dump_args`), each as if the file were called `fuzz.cpp`: the
//! seeds of the `clang_ast` fuzz target (`fuzz/run.sh`), which then never runs Clang.
//!
//! ```text
//! cargo run -p ehir-clang --example dump_ast -- [--abi itanium|msvc] [--std STD] OUT_DIR FILE.cpp...
//! ```
//!
//! `OUT_DIR/NAME.json` for each `NAME.cpp` Clang accepts; the others are reported on
//! stderr and skipped. Exit status 1 on bad arguments or when nothing was written.

use ehir_clang::ClangOptions;
use ehir_core::abi::EhAbi;
use std::path::{Path, PathBuf};

/// The name every dumped file has in its AST (what the fuzz target passes as the main file).
const MAIN_FILE: &str = "fuzz.cpp";

fn usage() -> ! {
    eprintln!("usage: dump_ast [--abi itanium|msvc] [--std STD] OUT_DIR FILE.cpp...");
    std::process::exit(1);
}

/// The AST of `source` as if it were `MAIN_FILE`, or why there is none.
fn dump(source: &Path, abi: EhAbi, options: &ClangOptions) -> Result<String, String> {
    let text = std::fs::read_to_string(source).map_err(|e| e.to_string())?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let copy = dir.path().join(MAIN_FILE);
    std::fs::write(&copy, &text).map_err(|e| e.to_string())?;
    let json = ehir_clang::clang::dump_ast(&copy, &text, abi, options).map_err(|e| match e {
        ehir_clang::ClangError::Rejected(ref diagnostics) => diagnostics
            .first()
            .map_or_else(|| e.to_string(), |d| d.message.clone()),
        other => other.to_string(),
    })?;
    let mut json = json.replace(&copy.display().to_string(), MAIN_FILE);
    if abi == EhAbi::Msvc
        && let Ok(headers) = ehir_clang::headers::msvc_header_dir()
    {
        // The same text in every run: the headers' temporary directory renamed.
        json = json.replace(&headers.display().to_string(), "msvc-headers");
    }
    Ok(json)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut abi = EhAbi::Itanium;
    let mut options = ClangOptions::default();
    let mut positional: Vec<String> = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--abi" => {
                abi = args
                    .next()
                    .and_then(|name| EhAbi::from_name(&name))
                    .unwrap_or_else(|| usage())
            }
            "--std" => options.std = Some(args.next().unwrap_or_else(|| usage())),
            _ => positional.push(arg),
        }
    }
    let Some((out, files)) = positional.split_first() else {
        usage()
    };
    if files.is_empty() {
        usage();
    }
    let out = PathBuf::from(out);
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("dump_ast: cannot create {}: {e}", out.display());
        std::process::exit(1);
    }
    let mut written = 0;
    for file in files {
        let source = Path::new(file);
        let stem = source
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        match dump(source, abi, &options) {
            Ok(json) => match std::fs::write(out.join(format!("{stem}.json")), json) {
                Ok(()) => written += 1,
                Err(e) => eprintln!("dump_ast: {file}: {e}"),
            },
            Err(why) => eprintln!("dump_ast: {file}: skipped: {why}"),
        }
    }
    ehir_clang::headers::remove_msvc_headers();
    eprintln!("dump_ast: {written} of {} files", files.len());
    if written == 0 {
        std::process::exit(1);
    }
}
