//! `gen KIND N`: writes one synthetic workload to stdout, for the scaling benchmark
//! (`bench/scaling.sh`) and by-hand experiments. KIND is `deep-scopes`, `deep-cleanups`,
//! `deep-trys`, `functions` (N small functions) or `program` (the random program of seed N).

use ehir_testgen::{
    GenConfig, deep_cleanups, deep_scopes, deep_trys, generate_program, many_functions,
};
use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gen deep-scopes|deep-cleanups|deep-trys|functions|program N";
    let (Some(kind), Some(n)) = (
        args.first(),
        args.get(1).and_then(|s| s.parse::<u64>().ok()),
    ) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let size = usize::try_from(n).unwrap_or(usize::MAX);
    let text = match kind.as_str() {
        "deep-scopes" => deep_scopes(size),
        "deep-cleanups" => deep_cleanups(size),
        "deep-trys" => deep_trys(size),
        "functions" => many_functions(size),
        "program" => generate_program(n, &GenConfig::default()),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let mut out = std::io::stdout().lock();
    if out.write_all(text.as_bytes()).is_err() {
        std::process::exit(1);
    }
}
