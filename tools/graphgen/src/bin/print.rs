//! `cargo run -p graphgen -- SEED INDEX [COUNT]` (the `print` binary): prints generated
//! graphs as `graph!` source.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parse = |i: usize, default: u64| -> u64 {
        args.get(i).map_or(default, |s| {
            let s = s.trim_start_matches("0x");
            u64::from_str_radix(s, if args[i].starts_with("0x") { 16 } else { 10 })
                .expect("a number")
        })
    };
    let seed = parse(0, graphgen::CI_SEED);
    let start = parse(1, 0);
    let count = parse(2, 1);
    for i in start..start + count {
        println!(
            "{}",
            graphgen::render::graph(&graphgen::gen::generate(seed, i))
        );
    }
}
