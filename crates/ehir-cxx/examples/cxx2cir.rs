//! Prints the structured CIR the front end builds for a C++ file (or its diagnostics).
//! Usage: `cargo run -p ehir-cxx --example cxx2cir -- FILE.cpp`

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: cxx2cir FILE.cpp");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    match ehir_cxx::compile(&path, &text) {
        Ok(m) => print!("{}", ehir_core::printer::module_to_string(&m)),
        Err(ds) => {
            let src = ehir_core::SourceFile::new(&path, &text);
            eprint!("{}", src.render_all(&ds));
            std::process::exit(1);
        }
    }
}
