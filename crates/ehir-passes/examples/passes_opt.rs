//! Development driver: `passes_opt FILE [PIPELINE]` parses a `.cir` file, runs the pass
//! pipeline (default `lowering-prepare,flatten-cfg`) with verification, and prints the
//! result (or the rendered diagnostics).

use ehir_core::SourceFile;
use ehir_passes::PassManager;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: passes_opt FILE [PIPELINE]");
        std::process::exit(2);
    };
    let pipeline = args
        .get(2)
        .map(String::as_str)
        .unwrap_or("lowering-prepare,flatten-cfg");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let source = SourceFile::new(path, &text);
    let mut module = match ehir_reader::parse_module(path, &text) {
        Ok(m) => m,
        Err(d) => {
            eprint!("{}", source.render_all(&d));
            std::process::exit(1)
        }
    };
    if let Err(d) = ehir_core::verifier::verify_module(&module) {
        eprint!("input does not verify:\n{}", source.render_all(&d));
        std::process::exit(1)
    }
    if !pipeline.is_empty() {
        let mut pm = match PassManager::from_pipeline(pipeline) {
            Ok(pm) => pm,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1)
            }
        };
        if let Err(e) = pm.run(&mut module) {
            eprintln!("{e}");
            eprint!("{}", source.render_all(&e.diagnostics()));
            print!("{}", ehir_core::printer::module_to_string(&module));
            std::process::exit(1)
        }
    }
    print!("{}", ehir_core::printer::module_to_string(&module));
}
