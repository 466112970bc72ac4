//! Parses a `.cir` file and prints it canonically, or its diagnostics (a development aid):
//! `cargo run -p ehir-reader --example parse -- FILE.cir [--verify]`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verify = args.iter().any(|a| a == "--verify");
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: parse FILE.cir [--verify]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("cannot read {path}: {e}");
        std::process::exit(2)
    });
    let source = ehir_core::SourceFile::new(path, &text);
    let module = match ehir_reader::parse_module(path, &text) {
        Ok(m) => m,
        Err(d) => {
            eprint!("{}", source.render_all(&d));
            std::process::exit(1);
        }
    };
    if verify && let Err(d) = ehir_core::verifier::verify_module(&module) {
        eprint!("{}", source.render_all(&d));
        std::process::exit(1);
    }
    print!("{}", ehir_core::printer::module_to_string(&module));
}
