//! Development tool: `stage_times FILE` prints how long parsing, verifying, flattening
//! (`lowering-prepare,flatten-cfg` without verification) and printing take.
//! `STAGE_PARSE_ONLY=1` stops after parsing, `STAGE_FLATTEN_ONLY=1` after flattening.

use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: stage_times FILE");
    let text = std::fs::read_to_string(&path).expect("readable");
    let t = Instant::now();
    let mut m = ehir_reader::parse_module(&path, &text).expect("parses");
    let parse = t.elapsed();
    if std::env::var_os("STAGE_PARSE_ONLY").is_some() {
        println!("parse {parse:?}");
        return;
    }
    if std::env::var_os("STAGE_FLATTEN_ONLY").is_some() {
        let mut pm =
            ehir_passes::PassManager::from_pipeline("lowering-prepare,flatten-cfg").unwrap();
        pm.set_verify_each(false);
        let t = Instant::now();
        pm.run(&mut m).expect("flattens");
        println!("flatten {:?}", t.elapsed());
        return;
    }
    let t = Instant::now();
    ehir_core::verifier::verify_module(&m).expect("verifies");
    let verify = t.elapsed();
    let t = Instant::now();
    let mut pm = ehir_passes::PassManager::from_pipeline("lowering-prepare,flatten-cfg").unwrap();
    pm.set_verify_each(false);
    pm.run(&mut m).expect("flattens");
    let flatten = t.elapsed();
    let t = Instant::now();
    let out = ehir_core::printer::module_to_string(&m);
    let print = t.elapsed();
    let t = Instant::now();
    ehir_core::verifier::verify_module(&m).expect("flat verifies");
    let verify_flat = t.elapsed();
    println!(
        "parse {parse:?} verify {verify:?} flatten {flatten:?} print {print:?} verify-flat {verify_flat:?} ({} bytes)",
        out.len()
    );
}
