//! The Rust source of a batch: each generated graph in its own module with a `run`
//! function that takes and returns bit-level host tensors (inputs.rs), and the table
//! `BATCH` of them. tensorgraph-tests' build script writes it; tensorgraph-tests/tests/graphgen.rs
//! includes it.

use crate::ast::{Form, Graph};
use crate::gen::generate;
use crate::render;
use crate::types::{DType, Dim};

fn shape_macro(dims: &[Dim]) -> String {
    let d: Vec<String> = dims
        .iter()
        .map(|d| match d {
            Dim::Lit(n) => n.to_string(),
            _ => "_".into(),
        })
        .collect();
    format!("Shape![{}]", d.join(", "))
}

fn rust_type(d: DType) -> String {
    match d.name() {
        t @ ("f16" | "bf16") => format!("tensorgraph::{t}"),
        t => t.to_string(),
    }
}

/// The bits every `_into` output is prefilled with (a failed call must leave them, a
/// successful one overwrite every element).
pub const SENTINEL: u64 = 0x5A5A_5A5A_5A5A_5A5A;

/// The module of one graph: the graph (an item, or a closure inside `run`) and `run`,
/// which calls it as `g.form` says.
pub fn graph_module(g: &Graph) -> String {
    let item = match g.form {
        Form::Closure { .. } => String::new(),
        _ => format!("    tensorgraph::graph! {{\n{}    }}\n", render::graph(g)),
    };
    let mut s = format!(
        "#[allow(deprecated, unused_parens, unused_variables, unused_imports, non_snake_case, clippy::all)]\nmod {name} {{\n    use tensorgraph::prelude::*;\n    use graphgen::inputs::{{HostElem, HostTensor}};\n{item}    pub fn run(inp: &[HostTensor]) -> Result<Vec<HostTensor>, String> {{\n",
        name = g.name,
    );
    // The closure first: each call below lends it buffers made after it and dropped before
    // it (issue 37: a closure with names could not take such a borrow).
    if let Form::Closure { typed } = g.form {
        s += &format!(
            "        let f = tensorgraph::graph!({});\n",
            render::closure(g, typed)
        );
    }
    // Two calls on buffers made afresh for each, one after the other on this thread: the
    // second runs on whatever the first left (scratch pools, packing buffers) and must
    // give the same outputs (issue 37: a temp read before it was written returned the
    // last call's values).
    s += "        let mut first: Option<Vec<HostTensor>> = None;\n        for _call in 0..2 {\n";
    let mut args = Vec::new();
    let symbolic_closure = matches!(g.form, Form::Closure { .. }) && g.is_symbolic();
    for (i, p) in g.params.iter().enumerate() {
        let t = rust_type(p.dtype);
        s += &format!("        let a{i}: Vec<{t}> = inp[{i}].to_vec();\n");
        match &p.dims {
            None => args.push(format!("a{i}[0]")),
            // The closure form with names fixes its argument types at the first call, so a
            // view (a type with the lifetime of the buffer it borrows) made inside the loop
            // cannot be passed (docs/language.md); it lends a slice of the buffer (at most
            // one name) or an owned tensor, which leave each call's borrow its own.
            // (A slice gives a name only when the literal dims do not multiply to 0.)
            Some(dims)
                if symbolic_closure
                    && dims.iter().filter(|d| !d.is_lit()).count() <= 1
                    && !dims.iter().any(|d| matches!(d, Dim::Expr(_)))
                    && !dims.contains(&Dim::Lit(0)) =>
            {
                args.push(format!("&a{i}[..]"));
            }
            Some(dims) if symbolic_closure => {
                s += &format!(
                    "        let v{i} = Tensor::<{t}, {}>::from_shape_vec(inp[{i}].dims.clone().try_into().unwrap(), a{i}.clone()).map_err(|e| e.to_string())?;\n",
                    shape_macro(dims)
                );
                args.push(format!("&v{i}"));
            }
            Some(dims) => {
                s += &format!(
                    "        let v{i} = TensorView::<{t}, {}>::with_dims(inp[{i}].dims.clone().try_into().unwrap(), &a{i}).map_err(|e| e.to_string())?;\n",
                    shape_macro(dims)
                );
                args.push(format!("&v{i}"));
            }
        }
    }
    let fallible = if g.is_fallible() {
        ".map_err(|e| e.to_string())?"
    } else {
        ""
    };
    let n_out = g.outputs.len();
    match g.form {
        Form::Item | Form::Closure { .. } => {
            let callee = match g.form {
                Form::Closure { .. } => "f".to_string(),
                _ => g.name.clone(),
            };
            s += &format!(
                "        let out = {callee}({}){fallible};\n",
                args.join(", ")
            );
            if n_out == 1 {
                s += "        let result = vec![HostTensor::from_slice(out.shape(), out.as_slice())];\n";
            } else {
                let outs: Vec<String> = (0..n_out)
                    .map(|k| format!("HostTensor::from_slice(out.{k}.shape(), out.{k}.as_slice())"))
                    .collect();
                s += &format!("        let result = vec![{}];\n", outs.join(", "));
            }
        }
        Form::Into => {
            // The sizes of the names, from the first argument axis that has each.
            // A name only inside expressions is solved from an affine one (`c * N + k`).
            for n in &g.names {
                let axes = || {
                    g.params.iter().enumerate().flat_map(|(i, p)| {
                        p.dims
                            .iter()
                            .flatten()
                            .enumerate()
                            .map(move |(a, d)| (i, a, d))
                    })
                };
                let plain = axes().find(|(_, _, d)| **d == Dim::Name(n));
                let line = match plain {
                    Some((i, a, _)) => format!("inp[{i}].dims[{a}] as i64"),
                    None => {
                        let (i, a, c, k) = axes()
                            .find_map(|(i, a, d)| match d {
                                Dim::Expr(l) => l
                                    .affine()
                                    .filter(|t| t.0 == *n)
                                    .map(|(_, c, k)| (i, a, c, k)),
                                _ => None,
                            })
                            .expect("every name is in a parameter");
                        format!("(inp[{i}].dims[{a}] as i64 - ({k})) / {c}")
                    }
                };
                s += &format!("        let n_{n}: i64 = {line};\n");
            }
            let mut outs = Vec::new();
            for (k, ty) in g.out_types.iter().enumerate() {
                let t = rust_type(ty.dtype);
                let dims: Vec<String> = ty
                    .dims
                    .iter()
                    .map(|d| match d {
                        Dim::Lit(n) => n.to_string(),
                        d => format!(
                            "({}).max(0) as usize",
                            d.lin().text_with(&|n| format!("n_{n}"))
                        ),
                    })
                    .collect();
                s += &format!(
                    "        let d{k}: [usize; {}] = [{}];\n        let mut b{k}: Vec<{t}> = vec![<{t} as HostElem>::from_bits64({SENTINEL:#x}); d{k}.iter().product()];\n",
                    dims.len(),
                    dims.join(", ")
                );
                outs.push(format!("&mut o{k}"));
            }
            s += "        let result: Result<(), String> = (|| {\n";
            for (k, ty) in g.out_types.iter().enumerate() {
                s += &format!(
                    "            let mut o{k} = TensorViewMut::<{}, {}>::with_dims(d{k}, &mut b{k}).map_err(|e| e.to_string())?;\n",
                    rust_type(ty.dtype),
                    shape_macro(&ty.dims)
                );
            }
            s += &format!(
                "            {}_into({}){fallible};\n            Ok(())\n        }})();\n",
                g.name,
                args.iter()
                    .cloned()
                    .chain(outs)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let untouched: Vec<String> = g
                .out_types
                .iter()
                .enumerate()
                .map(|(k, ty)| {
                    format!(
                        "b{k}.iter().all(|x| x.to_bits64() == <{} as HostElem>::from_bits64({SENTINEL:#x}).to_bits64())",
                        rust_type(ty.dtype)
                    )
                })
                .collect();
            s += &format!(
                "        if let Err(e) = result {{\n            assert!({}, \"a failed call wrote its outputs: {{e}}\");\n            return Err(e);\n        }}\n",
                untouched.join(" && ")
            );
            let outs: Vec<String> = (0..n_out)
                .map(|k| format!("HostTensor::from_slice(&d{k}, &b{k})"))
                .collect();
            s += &format!("        let result = vec![{}];\n", outs.join(", "));
        }
    }
    s += "        match &first {\n            None => first = Some(result),\n            Some(first) => assert!(\n                first.len() == result.len() && first.iter().zip(&result).all(|(a, b)| a.same_as(b)),\n                \"a second call on the same inputs gave other outputs\"\n            ),\n        }\n        }\n        Ok(first.expect(\"two calls\"))\n";
    s += "    }\n}\n";
    s
}

/// The batch of graphs `start..start + count` of `seed`.
pub fn batch_source(seed: u64, start: u64, count: u64) -> String {
    let mut s =
        format!("/// The seed the batch was generated from.\npub const SEED: u64 = {seed:#x};\n\n");
    let mut table = Vec::new();
    for i in start..start + count {
        let g = generate(seed, i);
        s += &graph_module(&g);
        table.push(format!("({i}, {}::run)", g.name));
    }
    s += &format!(
        "/// (index, runner) of every graph.\npub const BATCH: &[(u64, fn(&[graphgen::inputs::HostTensor]) -> Result<Vec<graphgen::inputs::HostTensor>, String>)] = &[\n    {}\n];\n",
        table.join(",\n    ")
    );
    s
}
