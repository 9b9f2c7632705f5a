//! Prints differentiable graphs (issue 32 item 6) as `graph!` source with their derivative
//! items: `cargo run -p graphgen --example grad -- SEED INDEX [COUNT]` (SEED may be hex,
//! `0x…`; `ci` is the CI batch's seed).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |s: &str| match s {
        "ci" => graphgen::grad::GRAD_CI_SEED,
        s => match s.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).expect("a hex number"),
            None => s.parse().expect("a number"),
        },
    };
    let seed = num(args.first().map_or("ci", |s| s));
    let start = args.get(1).map_or(0, |s| num(s));
    let count = args.get(2).map_or(1, |s| num(s));
    for i in start..start + count {
        let g = graphgen::grad::generate(seed, i);
        println!("// graph {i} of seed {seed:#x}\n{}", g.source());
    }
}
