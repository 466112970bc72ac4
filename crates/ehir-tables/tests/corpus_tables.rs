//! For every C++ program of the corpus (`tests/cxx/*.cpp`, `examples/*.cpp`), compiled by
//! the Clang front end for `x86_64-pc-windows-msvc`: the state tables ehir computes for
//! its MSVC-phase CIR equal, up to the order of sibling states, the
//! `$stateUnwindMap$`/`$tryMap$`/`$handlerMap$` tables llc writes for the LLVM IR
//! `emit-llvm --abi msvc` makes of the same CIR. Needs `clang++-22` (or `$EHIR_CLANG`)
//! and llc; fails loudly without them.

mod common;

use ehir_core::Phase;
use ehir_core::abi::EhAbi;
use ehir_tables::structure::{StateTables, canonical};
use std::path::PathBuf;
use std::process::Command;

fn corpus() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["tests/cxx", "examples"] {
        let Ok(entries) = std::fs::read_dir(common::root().join(dir)) else {
            continue;
        };
        files.extend(
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "cpp")),
        );
    }
    files.sort();
    files
}

#[test]
fn ehir_state_tables_match_llc_for_the_corpus() {
    let files = corpus();
    assert!(files.len() >= 50, "only {} corpus programs", files.len());
    let dir = std::env::temp_dir().join(format!("ehir-corpus-tables-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let (mut functions, mut mismatches) = (0, Vec::new());
    for file in &files {
        let name = file
            .file_name()
            .expect("name")
            .to_string_lossy()
            .to_string();
        let text = std::fs::read_to_string(file).expect("readable");
        let options = ehir_clang::Options {
            abi: EhAbi::Msvc,
            ..Default::default()
        };
        let mut module = ehir_clang::compile_file(file, &text, &options)
            .unwrap_or_else(|d| panic!("{name}: does not compile: {d}"));
        ehir_passes::lower_to(&mut module, Phase::Msvc)
            .unwrap_or_else(|e| panic!("{name}: does not lower to msvc: {e}"));
        let ll = ehir_llvm::module_to_llvm_text(&module, &name, &ehir_llvm::EmitOptions::msvc())
            .unwrap_or_else(|d| panic!("{name}: emit-llvm --abi msvc fails: {d}"));
        let ll_path = dir.join(format!("{name}.ll"));
        std::fs::write(&ll_path, ll).expect("write");
        let out = Command::new(common::llvm_tool("llc"))
            .arg("-mtriple=x86_64-pc-windows-msvc")
            .arg("-filetype=asm")
            .arg(&ll_path)
            .arg("-o")
            .arg("-")
            .output()
            .expect("llc runs");
        assert!(
            out.status.success(),
            "{name}: llc rejects the IR:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let llc = ehir_tables::llc_asm::parse(&String::from_utf8_lossy(&out.stdout))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut seen = Vec::new();
        for f in module.functions.values() {
            let fname = module.ctx.name(f.name).to_string();
            let ours = ehir_tables::wineh::function_tables(&module.ctx, f)
                .unwrap_or_else(|e| panic!("{name} @{fname}: {e}"))
                .map(|t| canonical(&StateTables::from_wineh(&t)));
            let theirs = llc.get(&fname).map(|t| canonical(&t.shape()));
            if ours.is_none() && theirs.is_none() {
                continue;
            }
            functions += 1;
            seen.push(fname.clone());
            if ours != theirs || ours.as_ref().is_some_and(|r| r.is_err()) {
                mismatches.push(format!(
                    "{name} @{fname}:\n  ehir: {ours:?}\n  llc:  {theirs:?}"
                ));
            }
        }
        for f in llc.keys().filter(|f| !seen.contains(f)) {
            mismatches.push(format!("{name} @{f}: llc wrote tables ehir does not have"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    assert!(functions >= 50, "only {functions} functions with tables");
}
