//! The syntax tree of the graph language and its parsers. Every node keeps the span
//! that errors about it point at: an operator's token for binary/unary ops, the
//! function name for calls, the literal itself for literals.
//!
//! Grammar (precedence and associativity follow Rust's):
//! ```text
//! input    := path (',' feature)* ';' (item+ | closure)   // path: the runtime, `$crate`; feature: ndarray | dispatch | debug | release
//! item     := attr* vis 'fn' ident '(' params ')' '->' type block
//! closure  := attr* '|' params '|' ('->' type)? (block | expr)   // lint attrs only
//! param    := ident ':' dtype ('[' dims? ']')?
//! type     := dtype '[' dims? ']' | '(' type (',' type)* ','? ')'
//! dims     := dim (',' dim)*            // dim := integer literal | name (bound at call entry)
//! block    := '{' ('let' ident '=' expr ';')* outputs '}'
//! outputs  := expr | '(' expr (',' expr)+ ','? ')'
//! expr     := unary (binop unary)* | expr 'as' dtype   // binop includes `@` (matmul)
//! unary    := ('-' | '!') unary | primary
//! primary  := literal | 'true' | 'false' | ident | ident '(' args ')' | '(' expr ')'
//! args     := (expr | ident '=' arg_value) (',' ...)*
//! ```

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::discouraged::Speculative;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{
    braced, bracketed, parenthesized, Attribute, Ident, LitFloat, LitInt, Token, Visibility,
};

use crate::dim_expr::Poly;
use crate::dtype::DType;
use crate::shape::Dim;

/// Everything inside `graph!`: the runtime path, then items or one closure.
pub struct GraphInput {
    pub runtime: TokenStream,
    /// What the runtime was built with (`$crate, ndarray, dispatch;`): only with ndarray
    /// arrays are the kernels and checks emitted that only they reach, only with whole-kernel
    /// dispatch do kernels go through its macro (emit/signature.rs `RuntimeFeatures`).
    pub features: crate::emit::RuntimeFeatures,
    pub body: GraphBody,
    /// `grad fn …` and `vjp fn …` items, derived from the graph functions of `body`.
    pub derived: Vec<DerivedFn>,
    /// Syntax errors of items that could not be parsed far enough to be emitted.
    pub errors: Vec<syn::Error>,
}

/// Which derivative a `grad fn`/`vjp fn` item asks for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum DerivedKind {
    /// `grad fn NAME = value_and_grad(GRAPH, wrt = [p, …]);`
    ValueAndGrad,
    /// `vjp fn NAME = vjp(GRAPH, wrt = [p, …]);`
    Vjp,
}

/// A derived graph function (`derive/` writes its body from `graph`'s).
pub struct DerivedFn {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub kind: DerivedKind,
    pub name: Ident,
    /// The graph function of the same `graph!` block it differentiates.
    pub graph: Ident,
    /// The parameters to differentiate with respect to, in output order.
    pub wrt: Vec<Ident>,
}

pub enum GraphBody {
    Items(Vec<GraphFn>),
    Closure(GraphFn),
}

/// A graph function: the item form, or the closure form (`name` is then synthetic).
pub struct GraphFn {
    /// The attributes for the generated functions: `#[allow(tensorgraph::…)]` entries are
    /// taken out into `allowed_warnings` (rustc knows no `tensorgraph` lint tool).
    pub attrs: Vec<Attribute>,
    /// The graph warnings silenced on this graph (`lib::WARNING_KINDS`).
    pub allowed_warnings: Vec<String>,
    /// `#[allow(tensorgraph::…)]` names that are no graph warning. Errors, but the body is
    /// still checked.
    pub attr_errors: Vec<syn::Error>,
    pub vis: Visibility,
    pub name: Ident,
    pub params: Vec<Param>,
    /// Absent only in the closure form, where the output type is inferred.
    pub ret: Option<ReturnType>,
    pub lets: Vec<Let>,
    pub outputs: Outputs,
    /// Syntax errors inside the function. The parser recovers at `,` between parameters
    /// and at `;` between statements, so one compile reports every one of them; the
    /// signature is still emitted (see `emit`), the body is not checked.
    pub syntax_errors: Vec<syn::Error>,
}

impl GraphFn {
    /// Whether the body calls a function named in `names`.
    pub fn calls(&self, names: &[&str]) -> bool {
        let outputs: Vec<&Expr> = match &self.outputs {
            Outputs::Single(e) => vec![e],
            Outputs::Tuple(list, _) => list.iter().collect(),
        };
        self.lets
            .iter()
            .map(|l| &l.value)
            .chain(outputs)
            .any(|e| e.calls(names))
    }
}

pub struct Param {
    pub name: Ident,
    pub ty: ParamType,
    /// `mut w: f32[…]`: updated in place by the graph's assignments (`w = …;`), taken as
    /// `&mut` (emit/in_place.rs).
    pub mutable: bool,
    /// The type failed to parse (reported in `syntax_errors`); `ty` is a placeholder.
    pub recovered: bool,
}

#[derive(Clone)]
pub struct ParamType {
    pub dtype: DType,
    /// `None` for a bare dtype (a run-time scalar), `Some(vec![])` for rank 0.
    pub dims: Option<Vec<Dim>>,
    /// Where each dim is written (for errors on one dim token).
    pub dim_spans: Vec<Span>,
    pub span: Span,
}

pub enum ReturnType {
    Single(ParamType),
    Tuple(Vec<ParamType>),
}

#[derive(Clone)]
pub struct Let {
    /// The name, or the first name of a tuple pattern.
    pub name: Ident,
    /// `let (a, b) = …`: every name of the pattern (a tuple-valued op's parts).
    pub tuple: Option<Vec<Ident>>,
    pub value: Expr,
}

pub enum Outputs {
    Single(Expr),
    Tuple(Vec<Expr>, Span),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    And,
    Or,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }

    /// Rust's binding power: higher binds tighter.
    fn precedence(self) -> u8 {
        match self {
            BinOp::Mul | BinOp::Div | BinOp::Rem => 10,
            BinOp::Add | BinOp::Sub => 9,
            BinOp::Shl | BinOp::Shr => 8,
            BinOp::BitAnd => 7,
            BinOp::BitXor => 6,
            BinOp::BitOr => 5,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 4,
            BinOp::And => 3,
            BinOp::Or => 2,
        }
    }

    fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Debug)]
pub enum LitValue {
    Int(u128),
    /// The value and the literal's digits as written (no suffix).
    Float(f64, String),
    Bool(bool),
    /// A char literal: only `'x'`, the new-axis marker of `dimshuffle`, is meaningful.
    Char(char),
    /// A string literal: only `einsum`'s subscripts.
    Str(String),
}

#[derive(Clone)]
pub enum Expr {
    Var(Ident),
    Lit(LitValue, Span),
    Unary {
        op: UnOp,
        op_span: Span,
        expr: Box<Expr>,
    },
    Binary {
        op: BinOp,
        op_span: Span,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Cast {
        expr: Box<Expr>,
        as_span: Span,
        to: DType,
    },
    Call {
        func: Ident,
        args: Vec<Expr>,
        named: Vec<NamedArg>,
    },
}

#[derive(Clone)]
pub struct NamedArg {
    pub name: Ident,
    pub value: Expr,
}

impl Expr {
    /// Whether the expression calls a function named in `names` anywhere inside it.
    pub fn calls(&self, names: &[&str]) -> bool {
        match self {
            Expr::Var(_) | Expr::Lit(..) => false,
            Expr::Unary { expr, .. } | Expr::Cast { expr, .. } => expr.calls(names),
            Expr::Binary { lhs, rhs, .. } => lhs.calls(names) || rhs.calls(names),
            Expr::Call { func, args, named } => {
                names.iter().any(|n| func == n)
                    || args.iter().any(|a| a.calls(names))
                    || named.iter().any(|n| n.value.calls(names))
            }
        }
    }

    /// The span errors about this expression point at.
    pub fn span(&self) -> Span {
        match self {
            Expr::Var(ident) => ident.span(),
            Expr::Lit(_, span) => *span,
            Expr::Unary { op_span, .. } => *op_span,
            Expr::Binary { op_span, .. } => *op_span,
            Expr::Cast { as_span, .. } => *as_span,
            Expr::Call { func, .. } => func.span(),
        }
    }
}

impl Parse for GraphInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        // The runtime path arrives first, written by the `graph!` wrapper: `$crate ;`, or with
        // the runtime's features, `$crate, ndarray, dispatch ;` (tensorgraph-core's
        // `graph_with_arg_forms!`).
        let mut runtime = TokenStream::new();
        while !input.peek(Token![;]) && !input.peek(Token![,]) {
            let tt: proc_macro2::TokenTree = input.parse()?;
            runtime.extend(Some(tt));
        }
        let mut features = crate::emit::RuntimeFeatures::default();
        while input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
            let flag: proc_macro2::Ident = input.parse()?;
            match flag.to_string().as_str() {
                "ndarray" => features.ndarray_args = true,
                "dispatch" => features.dispatch_copies = true,
                "debug" => features.debug_assertions = Some(true),
                "release" => features.debug_assertions = Some(false),
                _ => {
                    return Err(syn::Error::new(
                        flag.span(),
                        "expected `ndarray`, `dispatch`, `debug` or `release`",
                    ))
                }
            }
        }
        input.parse::<Token![;]>()?;
        let mut errors = Vec::new();
        let mut derived = Vec::new();
        // Attributes before a closure's `|` (`graph!(#[allow(tensorgraph::lossy_cast)] |x:
        // f32[8]| x as u8)`): an attribute on the `let` around `graph!(…)` is rustc's, which
        // knows no `tensorgraph::` lints.
        let closure_attrs = {
            let fork = input.fork();
            match fork.call(Attribute::parse_outer) {
                Ok(attrs) if !attrs.is_empty() && fork.peek(Token![|]) => {
                    input.advance_to(&fork);
                    Some(attrs)
                }
                _ => None,
            }
        };
        let body = if closure_attrs.is_some() || input.peek(Token![|]) {
            GraphBody::Closure(parse_closure(input, closure_attrs.unwrap_or_default()))
        } else {
            let mut items = Vec::new();
            while !input.is_empty() {
                if starts_derived(input) {
                    match parse_derived(input) {
                        Ok(d) => derived.push(d),
                        Err(e) => {
                            errors.push(e);
                            skip_derived(input);
                        }
                    }
                    continue;
                }
                let fork = input.fork();
                match parse_item(&fork) {
                    Ok(item) => {
                        input.advance_to(&fork);
                        items.push(item);
                    }
                    Err(e) => {
                        // Skip to the end of this item, its body's braces, and go on.
                        errors.push(e);
                        skip_item(input);
                    }
                }
            }
            if items.is_empty() && errors.is_empty() && derived.is_empty() {
                return Err(input.error(
                    "expected a graph function `fn name(x: f32[4]) -> f32[4] { … }` or a closure `|x: f32[4]| …`",
                ));
            }
            GraphBody::Items(items)
        };
        Ok(GraphInput {
            runtime,
            features,
            body,
            derived,
            errors,
        })
    }
}

/// Whether the next item is `grad fn …` or `vjp fn …` (after attributes and a visibility).
fn starts_derived(input: ParseStream) -> bool {
    let fork = input.fork();
    if fork.call(Attribute::parse_outer).is_err() || fork.parse::<Visibility>().is_err() {
        return false;
    }
    match fork.parse::<Ident>() {
        Ok(kind) if kind == "grad" || kind == "vjp" => fork.peek(Token![fn]),
        _ => false,
    }
}

/// `grad fn NAME = value_and_grad(GRAPH, wrt = [p, …]);` or `vjp fn NAME = vjp(GRAPH, wrt =
/// [p, …]);`.
fn parse_derived(input: ParseStream) -> syn::Result<DerivedFn> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis: Visibility = input.parse()?;
    let kind_word: Ident = input.parse()?;
    let kind = if kind_word == "grad" {
        DerivedKind::ValueAndGrad
    } else {
        DerivedKind::Vjp
    };
    let function = match kind {
        DerivedKind::ValueAndGrad => "value_and_grad",
        DerivedKind::Vjp => "vjp",
    };
    let usage = format!("`{kind_word} fn NAME = {function}(GRAPH, wrt = [p, …]);`");
    input.parse::<Token![fn]>()?;
    let name: Ident = input
        .parse()
        .map_err(|_| input.error(format!("expected the derived function's name: {usage}")))?;
    input
        .parse::<Token![=]>()
        .map_err(|_| input.error(format!("expected `=` after `{name}`: {usage}")))?;
    let call: Ident = input
        .parse()
        .map_err(|_| input.error(format!("expected `{function}(…)`: {usage}")))?;
    if call != function {
        return Err(syn::Error::new(
            call.span(),
            format!("a `{kind_word} fn` is `{function}(…)`, not `{call}(…)`: {usage}"),
        ));
    }
    let content;
    parenthesized!(content in input);
    let graph: Ident = content
        .parse()
        .map_err(|_| content.error(format!("expected the graph function's name: {usage}")))?;
    content.parse::<Token![,]>().map_err(|_| {
        content.error(format!(
            "expected `, wrt = [p, …]` naming the parameters to differentiate: {usage}"
        ))
    })?;
    let wrt_word: Ident = content.parse()?;
    if wrt_word != "wrt" {
        return Err(syn::Error::new(
            wrt_word.span(),
            format!("expected `wrt = [p, …]`: {usage}"),
        ));
    }
    content.parse::<Token![=]>()?;
    let list;
    bracketed!(list in content);
    let names = list.parse_terminated(Ident::parse, Token![,])?;
    if !content.is_empty() {
        return Err(content.error(format!("unexpected arguments: {usage}")));
    }
    if names.is_empty() {
        return Err(syn::Error::new(
            wrt_word.span(),
            "`wrt` names no parameter: list the parameters to differentiate, e.g. `wrt = [w, b]`",
        ));
    }
    input
        .parse::<Token![;]>()
        .map_err(|_| input.error(format!("expected `;` after `{function}(…)`")))?;
    Ok(DerivedFn {
        attrs,
        vis,
        kind,
        name,
        graph,
        wrt: names.into_iter().collect(),
    })
}

/// Error recovery after a malformed derived item: up to and including its `;`.
fn skip_derived(input: ParseStream) {
    while !input.is_empty() {
        let semi = input.peek(Token![;]);
        if input.parse::<proc_macro2::TokenTree>().is_err() || semi {
            return;
        }
    }
}

/// Describes the next token for "expected …, found …" messages.
fn found(input: ParseStream) -> String {
    match input.cursor().token_tree() {
        Some((tt, _)) => {
            let text = tt.to_string();
            let text = if text.chars().count() > 24 {
                format!("{}…", text.chars().take(20).collect::<String>())
            } else {
                text
            };
            format!("`{text}`")
        }
        None => "the end of the input".to_string(),
    }
}

/// Error recovery: drops token trees up to and including the first top-level `{ … }`
/// (the end of a malformed item), or to the end.
fn skip_item(input: ParseStream) {
    while !input.is_empty() {
        let brace = input.peek(syn::token::Brace);
        if input.parse::<proc_macro2::TokenTree>().is_err() {
            return;
        }
        if brace {
            return;
        }
    }
}

/// Error recovery: drops token trees up to and including the next top-level `stop`
/// token, or to the end.
fn skip_past(input: ParseStream, stop: char) {
    while !input.is_empty() {
        let at_stop = matches!(input.cursor().punct(), Some((p, _)) if p.as_char() == stop);
        if input.parse::<proc_macro2::TokenTree>().is_err() {
            return;
        }
        if at_stop {
            return;
        }
    }
}

/// The kinds of graph warning, each silenced on its own by `#[allow(tensorgraph::KIND)]` on
/// the graph; a warning's marker constant starts with its kind (`lossy_cast_f32_to_u8`).
/// `#[allow(deprecated)]` still silences them all (and every real deprecation with them).
pub const WARNING_KINDS: &[&str] = &[
    "unused_parameter",
    "integer_division_then_float",
    "lossy_cast",
    "reduction_then_cast",
];

/// The attributes with the `tensorgraph::KIND` entries of their `#[allow(…)]`s taken out
/// (an `allow` left empty goes), those kinds, and an error on each unknown
/// `tensorgraph::` name, listing the kinds.
fn graph_allows(attrs: Vec<Attribute>) -> (Vec<Attribute>, Vec<String>, Vec<syn::Error>) {
    use syn::punctuated::Punctuated;
    let mut kept = Vec::new();
    let mut allowed = Vec::new();
    let mut errors = Vec::new();
    for attr in attrs {
        let paths = attr
            .path()
            .is_ident("allow")
            .then(|| attr.parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated))
            .and_then(Result::ok);
        let Some(paths) = paths else {
            kept.push(attr);
            continue;
        };
        let (ours, rest): (Vec<syn::Path>, Vec<syn::Path>) = paths
            .into_iter()
            .partition(|p| p.segments.len() == 2 && p.segments[0].ident == "tensorgraph");
        if ours.is_empty() {
            kept.push(attr);
            continue;
        }
        for path in ours {
            let ident = &path.segments[1].ident;
            let name = ident.to_string();
            if WARNING_KINDS.contains(&name.as_str()) {
                allowed.push(name);
            } else {
                let kinds: Vec<String> = WARNING_KINDS
                    .iter()
                    .map(|k| format!("`tensorgraph::{k}`"))
                    .collect();
                errors.push(syn::Error::new(
                    ident.span(),
                    format!(
                        "no graph warning is called `{name}`: the graph warnings are {}",
                        kinds.join(", ")
                    ),
                ));
            }
        }
        if !rest.is_empty() {
            let span = attr.pound_token.span;
            kept.push(syn::parse_quote_spanned!(span=> #[allow(#(#rest),*)]));
        }
    }
    (kept, allowed, errors)
}

fn parse_item(input: ParseStream) -> syn::Result<GraphFn> {
    let attrs = input.call(Attribute::parse_outer)?;
    let (attrs, allowed_warnings, attr_errors) = graph_allows(attrs);
    let vis: Visibility = input.parse()?;
    if !input.peek(Token![fn]) {
        return Err(input.error(format!(
            "expected `fn`, found {}: `graph! {{ … }}` holds graph functions `fn name(x: f32[4]) -> f32[4] {{ … }}`",
            found(input)
        )));
    }
    input.parse::<Token![fn]>()?;
    if !input.peek(Ident) {
        return Err(input.error(format!(
            "expected the graph function's name, found {}",
            found(input)
        )));
    }
    let name: Ident = input.parse()?;
    if !input.peek(syn::token::Paren) {
        return Err(input.error(format!(
            "expected `(` and the parameters of `{name}`, found {}",
            found(input)
        )));
    }
    let mut syntax_errors = Vec::new();
    let content;
    parenthesized!(content in input);
    let params = parse_params(&content, &mut syntax_errors);
    let in_place = params.iter().any(|p| p.mutable);
    let ret = if input.peek(Token![->]) {
        input.parse::<Token![->]>()?;
        parse_return_type_recovering(input, &mut syntax_errors)
    } else if in_place && input.peek(syn::token::Brace) {
        // A graph that updates `mut` parameters in place may return nothing.
        Some(ReturnType::Tuple(Vec::new()))
    } else {
        syntax_errors.push(input.error(format!(
            "expected `->` and the output type after the parameters of `{name}`, found {}\n\
             help: declare the output, e.g. `-> f32[4, 8]`",
            found(input)
        )));
        // `fn f(x: f32[4]) f32[4] { … }`: the type is there, only the arrow is missing.
        if input.peek(syn::token::Brace) {
            None
        } else {
            let mut ignored = Vec::new();
            parse_return_type_recovering(input, &mut ignored)
        }
    };
    if !input.peek(syn::token::Brace) {
        return Err(input.error(format!(
            "expected `{{` and the body of `{name}`, found {}",
            found(input)
        )));
    }
    let body;
    braced!(body in input);
    let (lets, assigned, outputs) = parse_statements(&body, &mut syntax_errors, in_place);
    // Only `mut` parameters are assigned; each `mut` parameter is.
    for target in &assigned {
        if !params.iter().any(|p| p.mutable && p.name == *target) {
            let what = if params.iter().any(|p| p.name == *target) {
                format!("the parameter `{target}`")
            } else {
                format!("`{target}`")
            };
            syntax_errors.push(syn::Error::new(
                target.span(),
                format!(
                    "cannot assign to {what}: a graph assigns only its `mut` parameters, which it updates in place\n\
                     help: declare it `mut {target}: …` to update the caller's tensor, or bind a new name with `let`"
                ),
            ));
        }
    }
    for p in params.iter().filter(|p| p.mutable) {
        if !assigned.iter().any(|a| *a == p.name) {
            syntax_errors.push(syn::Error::new(
                p.name.span(),
                format!("`{}` is declared `mut` but never assigned: assign its new value (`{} = …;`) or drop the `mut`", p.name, p.name),
            ));
        }
    }
    Ok(GraphFn {
        attrs,
        allowed_warnings,
        attr_errors,
        vis,
        name,
        params,
        ret,
        lets,
        outputs,
        syntax_errors,
    })
}

/// A return type, or `None` after recording why not and skipping to the body's `{`.
fn parse_return_type_recovering(
    input: ParseStream,
    errors: &mut Vec<syn::Error>,
) -> Option<ReturnType> {
    let fork = input.fork();
    match parse_return_type(&fork) {
        Ok(ret) => {
            input.advance_to(&fork);
            Some(ret)
        }
        Err(e) => {
            errors.push(e);
            while !input.is_empty() && !input.peek(syn::token::Brace) {
                if input.parse::<proc_macro2::TokenTree>().is_err() {
                    break;
                }
            }
            None
        }
    }
}

/// The closure form never fails as a whole: its errors land in `syntax_errors`, so the
/// expansion is still a function value of the right arity.
///
/// Its attributes are lint levels only (`allow`, `warn`, `deny`, `expect`): they land on
/// the generated function, whose body holds the warnings' markers; the `tensorgraph::`
/// entries are taken out as on an item (`graph_allows`).
fn parse_closure(input: ParseStream, attrs: Vec<Attribute>) -> GraphFn {
    let mut syntax_errors = Vec::new();
    let (attrs, allowed_warnings, mut attr_errors) = graph_allows(attrs);
    let attrs: Vec<Attribute> = attrs
        .into_iter()
        .filter(|attr| {
            let lint = ["allow", "warn", "deny", "expect"]
                .iter()
                .any(|level| attr.path().is_ident(level));
            if !lint {
                attr_errors.push(syn::Error::new(
                    attr.pound_token.span,
                    "a graph closure takes only lint attributes: `#[allow(tensorgraph::lossy_cast)]`, `#[allow(deprecated)]`, …",
                ));
            }
            lint
        })
        .collect();
    let mut params = Vec::new();
    // The closure's name carries the span of its opening `|`: rustc reports the bounds of
    // the closure form of a graph with names (a generic function item) where the value is
    // named, which is then that `|` in the user's source, not the macro's call site.
    let open = input
        .parse::<Token![|]>()
        .map_or_else(|_| Span::call_site(), |bar| bar.spans[0]);
    // The parameters run to the next top-level `|`.
    let mut param_tokens = TokenStream::new();
    while !input.is_empty() && !input.peek(Token![|]) {
        match input.parse::<proc_macro2::TokenTree>() {
            Ok(tt) => param_tokens.extend(Some(tt)),
            Err(_) => break,
        }
    }
    let closed = input.parse::<Token![|]>();
    {
        use syn::parse::Parser;
        let parser = |stream: ParseStream| -> syn::Result<Vec<Param>> {
            Ok(parse_params(stream, &mut syntax_errors))
        };
        if let Ok(list) = parser.parse2(param_tokens) {
            params = list;
        }
    }
    if let Err(e) = closed {
        syntax_errors.push(syn::Error::new(
            e.span(),
            "expected `|` to close the graph closure's parameters",
        ));
    }
    let ret = if input.peek(Token![->]) {
        let _ = input.parse::<Token![->]>();
        parse_return_type_recovering(input, &mut syntax_errors)
    } else {
        None
    };
    let (lets, outputs) = if input.peek(syn::token::Brace) {
        match parse_braced_body(input, &mut syntax_errors) {
            Ok(contents) => {
                if !input.is_empty() {
                    syntax_errors.push(input.error(format!(
                        "expected the end of the graph closure after its body, found {}",
                        found(input)
                    )));
                }
                contents
            }
            Err(e) => {
                syntax_errors.push(e);
                (Vec::new(), placeholder_outputs())
            }
        }
    } else if input.is_empty() {
        syntax_errors.push(
            input.error("expected the graph closure's body, an expression, after its parameters"),
        );
        (Vec::new(), placeholder_outputs())
    } else {
        let fork = input.fork();
        match parse_outputs(&fork).and_then(|o| {
            if fork.is_empty() {
                Ok(o)
            } else {
                Err(fork.error(format!(
                    "expected an operator or the end of the graph closure, found {}",
                    found(&fork)
                )))
            }
        }) {
            Ok(outputs) => (Vec::new(), outputs),
            Err(e) => {
                syntax_errors.push(e);
                (Vec::new(), placeholder_outputs())
            }
        }
    };
    // Whatever is left was reported above.
    while !input.is_empty() {
        if input.parse::<proc_macro2::TokenTree>().is_err() {
            break;
        }
    }
    GraphFn {
        attrs,
        allowed_warnings,
        attr_errors,
        vis: Visibility::Inherited,
        name: Ident::new("__tg_graph", open),
        params,
        ret,
        lets,
        outputs,
        syntax_errors,
    }
}

fn parse_braced_body(
    input: ParseStream,
    errors: &mut Vec<syn::Error>,
) -> syn::Result<(Vec<Let>, Outputs)> {
    let body;
    braced!(body in input);
    Ok(parse_block_contents(&body, errors))
}

/// Stands in for a body that did not parse; never checked (see `syntax_errors`).
fn placeholder_outputs() -> Outputs {
    Outputs::Single(Expr::Lit(LitValue::Bool(false), Span::call_site()))
}

/// Parameters separated by `,`, recovering at the next `,` after a malformed one. A
/// parameter whose name parsed but whose type did not is kept as `recovered`, so the
/// emitted signature keeps its arity.
fn parse_params(input: ParseStream, errors: &mut Vec<syn::Error>) -> Vec<Param> {
    let mut params = Vec::new();
    while !input.is_empty() {
        let fork = input.fork();
        match Param::parse(&fork) {
            Ok(param) if fork.is_empty() || fork.peek(Token![,]) => {
                input.advance_to(&fork);
                params.push(param);
            }
            result => {
                let error = match result {
                    Err(e) => e,
                    Ok(_) => fork.error(format!(
                        "expected `,` or the end of the parameters, found {}",
                        found(&fork)
                    )),
                };
                errors.push(error);
                if input.peek(Ident) && input.peek2(Token![:]) {
                    if let Ok(name) = input.parse::<Ident>() {
                        let span = input.span();
                        params.push(Param {
                            mutable: false,
                            name,
                            ty: ParamType {
                                dtype: DType::F32,
                                dims: None,
                                dim_spans: Vec::new(),
                                span,
                            },
                            recovered: true,
                        });
                    }
                }
                skip_past(input, ',');
                continue;
            }
        }
        if input.is_empty() {
            break;
        }
        let _ = input.parse::<Token![,]>();
    }
    params
}

impl Param {
    /// A copy that is not `mut`: a parameter of the graphs that `derive` and
    /// `emit/in_place.rs` write from this one.
    pub fn read_only(&self) -> Param {
        Param {
            mutable: false,
            name: self.name.clone(),
            ty: self.ty.clone(),
            recovered: self.recovered,
        }
    }
}

impl Parse for Param {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mutable = input.peek(Token![mut]);
        if mutable {
            input.parse::<Token![mut]>()?;
        }
        if !input.peek(Ident) {
            return Err(input.error(format!(
                "expected a parameter `name: dtype[dims]`, e.g. `x: f32[4, 8]`, found {}",
                found(input)
            )));
        }
        let name: Ident = input.parse()?;
        if !input.peek(Token![:]) {
            return Err(input.error(format!(
                "expected `:` and the type of the parameter `{name}`, e.g. `{name}: f32[4, 8]`, found {}",
                found(input)
            )));
        }
        input.parse::<Token![:]>()?;
        let ty: ParamType = input.parse()?;
        Ok(Param {
            mutable,
            name,
            ty,
            recovered: false,
        })
    }
}

impl Parse for ParamType {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let (dtype, dtype_span) = parse_dtype(input)?;
        let mut span = dtype_span;
        let mut dim_spans = Vec::new();
        let dims = if input.peek(syn::token::Bracket) {
            let content;
            let bracket = bracketed!(content in input);
            span = dtype_span.join(bracket.span.join()).unwrap_or(dtype_span);
            let mut dims = Vec::new();
            while !content.is_empty() {
                let (dim, dim_span) = parse_dim(&content)?;
                dims.push(dim);
                dim_spans.push(dim_span);
                if content.is_empty() {
                    break;
                }
                if !content.peek(Token![,]) {
                    return Err(content.error(format!(
                        "expected `,` or `]` after a dimension, found {}",
                        found(&content)
                    )));
                }
                content.parse::<Token![,]>()?;
            }
            if dims.len() > 6 {
                return Err(syn::Error::new(span, "tensors have rank 6 at most"));
            }
            Some(dims)
        } else {
            None
        };
        Ok(ParamType {
            dtype,
            dims,
            dim_spans,
            span,
        })
    }
}

/// A dim: an integer literal, a name bound at call entry (`B`), or an expression over
/// them (docs/language.md, "Dim expressions"): `+`, `-`, `*`, floor `/` by a positive
/// literal, `max(a, b)`, `min(a, b)` and parentheses, with the usual precedence.
fn parse_dim(input: ParseStream) -> syn::Result<(Dim, Span)> {
    let (poly, span) = parse_dim_sum(input)?;
    let text = poly.to_string();
    Dim::from_poly(poly).map(|d| (d, span)).map_err(|value| {
        syn::Error::new(
            span,
            format!(
                "this dim is {value} (`{text}`): dimensions are sizes, so they cannot be negative"
            ),
        )
    })
}

fn join(a: Span, b: Span) -> Span {
    a.join(b).unwrap_or(a)
}

/// `term (('+' | '-') term)*`
fn parse_dim_sum(input: ParseStream) -> syn::Result<(Poly, Span)> {
    let (mut poly, mut span) = parse_dim_term(input)?;
    loop {
        let minus = if input.peek(Token![+]) {
            input.parse::<Token![+]>()?;
            false
        } else if input.peek(Token![-]) && !input.peek(Token![->]) {
            input.parse::<Token![-]>()?;
            true
        } else {
            return Ok((poly, span));
        };
        let (rhs, rhs_span) = parse_dim_term(input)?;
        poly = if minus {
            poly.sub(&rhs)
        } else {
            poly.add(&rhs)
        };
        span = join(span, rhs_span);
    }
}

/// `factor (('*' | '/') factor)*`; `/` is floor division by a positive literal.
fn parse_dim_term(input: ParseStream) -> syn::Result<(Poly, Span)> {
    let (mut poly, mut span) = parse_dim_factor(input)?;
    loop {
        if input.peek(Token![*]) {
            input.parse::<Token![*]>()?;
            let (rhs, rhs_span) = parse_dim_factor(input)?;
            poly = poly.mul(&rhs);
            span = join(span, rhs_span);
        } else if input.peek(Token![/]) {
            input.parse::<Token![/]>()?;
            let (rhs, rhs_span) = parse_dim_factor(input)?;
            match rhs.as_constant() {
                Some(d) if d > 0 => poly = poly.floor_div(d as u64),
                _ => {
                    return Err(syn::Error::new(
                        rhs_span,
                        format!("a dim is divided only by a positive integer literal (floor division, as JAX and MAX), not by `{rhs}`"),
                    ))
                }
            }
            span = join(span, rhs_span);
        } else {
            return Ok((poly, span));
        }
    }
}

/// `( sum )`, `max( sum , sum )`, `min( sum , sum )`, a literal or a name.
fn parse_dim_factor(input: ParseStream) -> syn::Result<(Poly, Span)> {
    if input.peek(syn::token::Paren) {
        let content;
        let paren = parenthesized!(content in input);
        let (poly, _) = parse_dim_sum(&content)?;
        if !content.is_empty() {
            return Err(content.error(format!(
                "expected `)` after a dim expression, found {}",
                found(&content)
            )));
        }
        return Ok((poly, paren.span.join()));
    }
    let is_extremum = (input.peek(Ident) && input.peek2(syn::token::Paren))
        .then(|| input.fork().parse::<Ident>().ok())
        .flatten()
        .filter(|i| i == "max" || i == "min");
    if let Some(which) = is_extremum {
        input.parse::<Ident>()?;
        let content;
        let paren = parenthesized!(content in input);
        let (a, _) = parse_dim_sum(&content)?;
        if !content.peek(Token![,]) {
            return Err(content.error(format!(
                "`{which}` of dims takes two dims, `{which}(a, b)`; found {}",
                found(&content)
            )));
        }
        content.parse::<Token![,]>()?;
        let (b, _) = parse_dim_sum(&content)?;
        let _ = content.parse::<Option<Token![,]>>();
        if !content.is_empty() {
            return Err(content.error(format!(
                "`{which}` of dims takes two dims, `{which}(a, b)`; found {}",
                found(&content)
            )));
        }
        let poly = if which == "max" {
            a.maximum(&b)
        } else {
            a.minimum(&b)
        };
        return Ok((poly, join(which.span(), paren.span.join())));
    }
    let (dim, span) = parse_dim_atom(input)?;
    Ok((dim.poly(), span))
}

/// An integer literal or a name.
fn parse_dim_atom(input: ParseStream) -> syn::Result<(Dim, Span)> {
    if input.peek(Token![_]) {
        let underscore: Token![_] = input.parse()?;
        return Err(syn::Error::new(
            underscore.span,
            "`_` is not a dim of a graph signature: give the run-time dim a name, e.g. `x: f32[B, 768]`\n\
             note: the same name means the same size everywhere in the graph, so names are how shapes are checked",
        ));
    }
    if input.peek(Ident) {
        let name: Ident = input.parse()?;
        if DType::from_name(&name.to_string()).is_some() {
            return Err(syn::Error::new(
                name.span(),
                format!("`{name}` is a dtype, not a dim name: dims are literal sizes or names such as `B`"),
            ));
        }
        return Ok((Dim::Named(name.unraw().to_string()), name.span()));
    }
    if !input.peek(LitInt) {
        let hint = if input.peek(Token![-]) {
            "\nnote: dimensions are sizes, so they cannot be negative"
        } else if input.peek(LitFloat) {
            "\nnote: dimensions are whole numbers: write `4`, not `4.0`"
        } else {
            ""
        };
        return Err(input.error(format!(
            "expected a dimension, an integer literal such as `4` or a name such as `B`, found {}{hint}",
            found(input)
        )));
    }
    let lit: LitInt = input.parse()?;
    if lit.base10_digits().starts_with('-') {
        return Err(syn::Error::new(
            lit.span(),
            format!("expected a dimension, found `{lit}`\nnote: dimensions are sizes, so they cannot be negative"),
        ));
    }
    if !lit.suffix().is_empty() {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "a dimension is a plain integer literal, without a suffix: write `{}`",
                lit.base10_digits()
            ),
        ));
    }
    lit.base10_parse::<usize>()
        .map(|n| (Dim::Static(n), lit.span()))
        .map_err(|_| {
            syn::Error::new(
                lit.span(),
                "a dimension must be a non-negative integer that fits in usize",
            )
        })
}

pub fn parse_dtype(input: ParseStream) -> syn::Result<(DType, Span)> {
    if !input.peek(Ident::peek_any) {
        return Err(input.error(format!(
            "expected a dtype, one of {}, found {}",
            DType::ALL_NAMES,
            found(input)
        )));
    }
    let ident = Ident::parse_any(input)?;
    let name = ident.to_string();
    match DType::from_name(&name) {
        Some(dtype) => Ok((dtype, ident.span())),
        None => {
            let help = match dtype_alias(&name) {
                Some(d) => format!(
                    "\nhelp: the graph language spells this dtype `{}`",
                    d.name()
                ),
                None => String::new(),
            };
            Err(syn::Error::new(
                ident.span(),
                format!(
                    "unknown dtype `{ident}`: expected one of {}{help}",
                    DType::ALL_NAMES
                ),
            ))
        }
    }
}

/// Other spellings of dtypes (NumPy, PyTorch, C, near misses), for the hint of an
/// unknown dtype.
fn dtype_alias(name: &str) -> Option<DType> {
    let lower = name.to_ascii_lowercase();
    let d = match lower.trim_start_matches("torch.").trim_start_matches("np.") {
        "float" | "float32" | "single" => DType::F32,
        "double" | "float64" => DType::F64,
        "half" | "float16" => DType::F16,
        "bfloat16" | "bfloat" => DType::BF16,
        "int" | "int32" => DType::I32,
        "long" | "int64" | "isize" => DType::I64,
        "short" | "int16" => DType::I16,
        "int8" | "char" => DType::I8,
        "uint8" | "byte" => DType::U8,
        "uint16" => DType::U16,
        "uint32" | "uint" => DType::U32,
        "uint64" | "usize" => DType::U64,
        "boolean" | "bool_" => DType::Bool,
        other => return DType::ALL.into_iter().find(|d| d.name() == other),
    };
    Some(d)
}

fn parse_return_type(input: ParseStream) -> syn::Result<ReturnType> {
    if input.peek(syn::token::Paren) {
        let content;
        parenthesized!(content in input);
        let list = content.parse_terminated(ParamType::parse, Token![,])?;
        let tys: Vec<ParamType> = list.into_iter().collect();
        if tys.is_empty() {
            return Err(
                input.error("a graph has at least one output: write its type, e.g. `-> f32[4]`")
            );
        }
        if let Some(ty) = tys.iter().find(|t| t.dims.is_none()) {
            return Err(output_needs_dims(ty));
        }
        if tys.len() == 1 {
            return Ok(ReturnType::Single(
                tys.into_iter().next().expect("one element"),
            ));
        }
        Ok(ReturnType::Tuple(tys))
    } else {
        let ty: ParamType = input.parse()?;
        if ty.dims.is_none() {
            return Err(output_needs_dims(&ty));
        }
        Ok(ReturnType::Single(ty))
    }
}

fn output_needs_dims(ty: &ParamType) -> syn::Error {
    let d = ty.dtype.name();
    syn::Error::new(
        ty.span,
        format!("expected a tensor type `{d}[…]`, found the bare dtype `{d}`\nhelp: a graph output is a tensor: write `{d}[]` for rank 0 or `{d}[d0, d1, …]`"),
    )
}

/// `let` statements and the output. A malformed statement is recorded and skipped to
/// its `;`, so every syntax error of a body is reported in one compile.
fn parse_block_contents(input: ParseStream, errors: &mut Vec<syn::Error>) -> (Vec<Let>, Outputs) {
    let (lets, assigned, outputs) = parse_statements(input, errors, false);
    for target in assigned {
        errors.push(syn::Error::new(
            target.span(),
            format!("cannot assign to `{target}` here: a graph assigns only its `mut` parameters"),
        ));
    }
    (lets, outputs)
}

/// `let` bindings and assignments (`w = …;`, each a `let` of the name too), then the
/// output expression, which a graph updating `mut` parameters (`in_place`) may leave out.
fn parse_statements(
    input: ParseStream,
    errors: &mut Vec<syn::Error>,
    in_place: bool,
) -> (Vec<Let>, Vec<Ident>, Outputs) {
    let mut lets = Vec::new();
    let mut assigned = Vec::new();
    loop {
        if input.peek(Token![let]) {
            let fork = input.fork();
            match parse_let(&fork) {
                Ok(binding) => {
                    input.advance_to(&fork);
                    lets.push(binding);
                }
                Err(e) => {
                    errors.push(e);
                    skip_past(input, ';');
                }
            }
            continue;
        }
        // `w = …;` (not `w == …`: syn peeks `=` in `==` too).
        if input.peek(Ident) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
            let fork = input.fork();
            let parsed = (|| -> syn::Result<Let> {
                let name: Ident = fork.parse()?;
                fork.parse::<Token![=]>()?;
                let value = parse_expr(&fork)?;
                fork.parse::<Token![;]>()?;
                Ok(Let {
                    name,
                    tuple: None,
                    value,
                })
            })();
            match parsed {
                Ok(binding) => {
                    input.advance_to(&fork);
                    assigned.push(binding.name.clone());
                    lets.push(binding);
                }
                Err(e) => {
                    errors.push(e);
                    skip_past(input, ';');
                }
            }
            continue;
        }
        break;
    }
    if in_place && input.is_empty() {
        return (lets, assigned, Outputs::Tuple(Vec::new(), input.span()));
    }
    let (lets, outputs) = parse_outputs_after(input, errors, lets);
    (lets, assigned, outputs)
}

/// The output expression after a body's statements.
fn parse_outputs_after(
    input: ParseStream,
    errors: &mut Vec<syn::Error>,
    lets: Vec<Let>,
) -> (Vec<Let>, Outputs) {
    // Rust's habit `return y;`: reported, then the output is read as if it were not there.
    let returned = input.peek(Token![return]);
    if returned {
        if let Ok(kw) = input.parse::<Token![return]>() {
            errors.push(syn::Error::new(
                kw.span,
                "a graph body has no `return`: its value is the expression it ends with\n\
                 help: write the output expression last, without `return` and without `;`",
            ));
        }
    }
    if input.is_empty() {
        errors.push(input.error("expected the graph's output expression after its `let` bindings"));
        return (lets, placeholder_outputs());
    }
    let fork = input.fork();
    let outputs = match parse_outputs(&fork) {
        Ok(outputs) => outputs,
        Err(e) => {
            errors.push(e);
            drain(input);
            return (lets, placeholder_outputs());
        }
    };
    input.advance_to(&fork);
    // The `;` after `return y` belongs to the error above.
    if returned && input.peek(Token![;]) {
        let _ = input.parse::<Token![;]>();
    }
    if !input.is_empty() {
        let fork = input;
        let message = if fork.peek(Token![;]) {
            "expected the end of the graph body, found `;`\n\
             help: the output expression comes last, without `;`"
                .to_string()
        } else {
            format!(
                "expected an operator or the end of the graph body, found {}",
                found(&fork)
            )
        };
        errors.push(fork.error(message));
        drain(input);
    }
    (lets, outputs)
}

/// Consumes the rest of a group. syn reports "unexpected token" for a group left
/// half-parsed, which would replace every recovered error with that one.
fn drain(input: ParseStream) {
    while !input.is_empty() {
        if input.parse::<proc_macro2::TokenTree>().is_err() {
            return;
        }
    }
}

fn parse_let(input: ParseStream) -> syn::Result<Let> {
    input.parse::<Token![let]>()?;
    let mut tuple = None;
    if input.peek(syn::token::Paren) {
        // `let (a, b) = split(…)`: a tuple-valued op's parts.
        let content;
        let paren = parenthesized!(content in input);
        let mut names = Vec::new();
        while !content.is_empty() {
            if !content.peek(Ident) {
                return Err(content.error(format!(
                    "expected a binding name in the pattern, found {}",
                    found(&content)
                )));
            }
            names.push(content.parse::<Ident>()?);
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        if names.len() < 2 {
            return Err(syn::Error::new(
                paren.span.join(),
                "a tuple pattern names two or more parts: `let (a, b) = …`",
            ));
        }
        tuple = Some(names);
    } else if !input.peek(Ident) {
        return Err(input.error(format!(
            "expected a binding name after `let`, found {}",
            found(input)
        )));
    }
    let name: Ident = match &tuple {
        Some(names) => names[0].clone(),
        None => input.parse()?,
    };
    if !input.peek(Token![=]) || input.peek(Token![==]) {
        let help = if input.peek(Token![:]) {
            "\nnote: bindings take their type from their value; cast it with `as` to change the dtype"
        } else {
            ""
        };
        return Err(input.error(format!(
            "expected `=` after `let {name}`, found {}{help}",
            found(input)
        )));
    }
    input.parse::<Token![=]>()?;
    let value = parse_expr(input)?;
    if !input.peek(Token![;]) {
        return Err(input.error(format!(
            "expected `;` or an operator after the value of `let {name}`, found {}",
            found(input)
        )));
    }
    input.parse::<Token![;]>()?;
    Ok(Let { name, tuple, value })
}

/// One expression, or a parenthesised tuple of several for multi-output graphs.
fn parse_outputs(input: ParseStream) -> syn::Result<Outputs> {
    if input.peek(syn::token::Paren) {
        let fork = input.fork();
        let content;
        let paren = parenthesized!(content in fork);
        let first = parse_expr(&content)?;
        if content.peek(Token![,]) {
            let mut exprs = vec![first];
            while content.peek(Token![,]) {
                content.parse::<Token![,]>()?;
                if content.is_empty() {
                    break;
                }
                exprs.push(parse_expr(&content)?);
            }
            if !content.is_empty() {
                return Err(content.error(format!(
                    "expected `,` or `)` in the output tuple, found {}",
                    found(&content)
                )));
            }
            if fork.is_empty() {
                input.advance_to(&fork);
                return Ok(Outputs::Tuple(exprs, paren.span.join()));
            }
        }
    }
    Ok(Outputs::Single(parse_expr(input)?))
}

pub fn parse_expr(input: ParseStream) -> syn::Result<Expr> {
    parse_binary(input, 0)
}

/// Peeks a binary operator, longest token first.
fn peek_binop(input: ParseStream) -> Option<BinOp> {
    Some(if input.peek(Token![<<]) && !input.peek(Token![<<=]) {
        BinOp::Shl
    } else if input.peek(Token![>>]) && !input.peek(Token![>>=]) {
        BinOp::Shr
    } else if input.peek(Token![<=]) {
        BinOp::Le
    } else if input.peek(Token![>=]) {
        BinOp::Ge
    } else if input.peek(Token![==]) {
        BinOp::Eq
    } else if input.peek(Token![!=]) {
        BinOp::Ne
    } else if input.peek(Token![&&]) {
        BinOp::And
    } else if input.peek(Token![||]) {
        BinOp::Or
    } else if input.peek(Token![<]) {
        BinOp::Lt
    } else if input.peek(Token![>]) {
        BinOp::Gt
    } else if input.peek(Token![+]) && !input.peek(Token![+=]) {
        BinOp::Add
    } else if input.peek(Token![-]) && !input.peek(Token![-=]) && !input.peek(Token![->]) {
        BinOp::Sub
    } else if input.peek(Token![*]) && !input.peek(Token![*=]) {
        BinOp::Mul
    } else if input.peek(Token![/]) && !input.peek(Token![/=]) {
        BinOp::Div
    } else if input.peek(Token![%]) && !input.peek(Token![%=]) {
        BinOp::Rem
    } else if input.peek(Token![&]) && !input.peek(Token![&=]) {
        BinOp::BitAnd
    } else if input.peek(Token![|]) && !input.peek(Token![|=]) {
        BinOp::BitOr
    } else if input.peek(Token![^]) && !input.peek(Token![^=]) {
        BinOp::BitXor
    } else {
        return None;
    })
}

fn parse_binop_token(input: ParseStream, op: BinOp) -> syn::Result<Span> {
    Ok(match op {
        BinOp::Add => input.parse::<Token![+]>()?.span(),
        BinOp::Sub => input.parse::<Token![-]>()?.span(),
        BinOp::Mul => input.parse::<Token![*]>()?.span(),
        BinOp::Div => input.parse::<Token![/]>()?.span(),
        BinOp::Rem => input.parse::<Token![%]>()?.span(),
        BinOp::Eq => input.parse::<Token![==]>()?.span(),
        BinOp::Ne => input.parse::<Token![!=]>()?.span(),
        BinOp::Lt => input.parse::<Token![<]>()?.span(),
        BinOp::Le => input.parse::<Token![<=]>()?.span(),
        BinOp::Gt => input.parse::<Token![>]>()?.span(),
        BinOp::Ge => input.parse::<Token![>=]>()?.span(),
        BinOp::BitAnd => input.parse::<Token![&]>()?.span(),
        BinOp::BitOr => input.parse::<Token![|]>()?.span(),
        BinOp::BitXor => input.parse::<Token![^]>()?.span(),
        BinOp::Shl => input.parse::<Token![<<]>()?.span(),
        BinOp::Shr => input.parse::<Token![>>]>()?.span(),
        BinOp::And => input.parse::<Token![&&]>()?.span(),
        BinOp::Or => input.parse::<Token![||]>()?.span(),
    })
}

/// The binding power of `@`: `*`'s.
const MATMUL_PRECEDENCE: u8 = 10;

/// Precedence climbing over Rust's operator table; `as` binds tighter than any binary op.
fn parse_binary(input: ParseStream, min_precedence: u8) -> syn::Result<Expr> {
    let mut lhs = parse_cast(input)?;
    loop {
        // `a @ b` is the call `matmul(a, b)` (errors point at the `@`); it binds like `*`,
        // as in Python.
        if input.peek(Token![@]) {
            if MATMUL_PRECEDENCE < min_precedence {
                break;
            }
            let at = input.parse::<Token![@]>()?.span;
            let rhs = parse_binary(input, MATMUL_PRECEDENCE + 1)?;
            lhs = Expr::Call {
                func: Ident::new("matmul", at),
                args: vec![lhs, rhs],
                named: Vec::new(),
            };
            continue;
        }
        let Some(op) = peek_binop(input) else {
            break;
        };
        let precedence = op.precedence();
        if precedence < min_precedence {
            break;
        }
        let op_span = parse_binop_token(input, op)?;
        if op == BinOp::Mul && input.peek(Token![*]) {
            let second = input.parse::<Token![*]>()?.span;
            let at = op_span.join(second).unwrap_or(op_span);
            return Err(syn::Error::new(
                at,
                "`**` is not an operator of the language\n\
                 help: write `pow(x, 2.0)`, or `square(x)` for a square",
            ));
        }
        let rhs = parse_binary(input, precedence + 1)?;
        if op.is_comparison() {
            if let Some(next) = peek_binop(input) {
                if next.is_comparison() {
                    return Err(input.error(format!(
                        "comparison operators cannot be chained: `a {} b {} c`; use parentheses",
                        op.symbol(),
                        next.symbol()
                    )));
                }
            }
        }
        lhs = Expr::Binary {
            op,
            op_span,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        };
    }
    Ok(lhs)
}

fn parse_cast(input: ParseStream) -> syn::Result<Expr> {
    let mut expr = parse_unary(input)?;
    while input.peek(Token![as]) {
        let as_span = input.parse::<Token![as]>()?.span();
        let (to, _) = parse_dtype(input)?;
        expr = Expr::Cast {
            expr: Box::new(expr),
            as_span,
            to,
        };
    }
    Ok(expr)
}

fn parse_unary(input: ParseStream) -> syn::Result<Expr> {
    if input.peek(Token![-]) {
        let op_span = input.parse::<Token![-]>()?.span();
        let expr = parse_unary(input)?;
        return Ok(Expr::Unary {
            op: UnOp::Neg,
            op_span,
            expr: Box::new(expr),
        });
    }
    if input.peek(Token![!]) {
        let op_span = input.parse::<Token![!]>()?.span();
        let expr = parse_unary(input)?;
        return Ok(Expr::Unary {
            op: UnOp::Not,
            op_span,
            expr: Box::new(expr),
        });
    }
    parse_primary(input)
}

/// Names that other libraries' users write before a function (`np.exp(x)`): a method call
/// on one of them is reported as that library's spelling, not as method syntax on a tensor.
const LIBRARY_NAMESPACES: &[&str] = &[
    "np", "numpy", "torch", "F", "nn", "tf", "jnp", "jax", "lax", "math", "mx", "ops", "cp",
    "scipy", "special", "ndarray", "nd", "tch", "candle", "burn",
];

/// A primary expression, and the spellings of other languages that users write after
/// one: method calls (`x.exp()`) and paths (`f32::INFINITY`), each an error that says
/// what the graph language has instead.
fn parse_primary(input: ParseStream) -> syn::Result<Expr> {
    let mut expr = parse_primary_inner(input)?;
    while input.peek(syn::token::Bracket) {
        expr = parse_index(input, expr)?;
    }
    if input.peek(Token![.]) && input.peek2(Ident) {
        let dot: Token![.] = input.parse()?;
        let method: Ident = input.parse()?;
        let receiver = expr_text(&expr);
        // `np.exp(x)`, `torch.exp(x)`, `F.relu(x)`: a library's namespace, not a receiver.
        let namespace = matches!(&expr, Expr::Var(ident) if LIBRARY_NAMESPACES.contains(&ident.to_string().as_str()));
        let args = if input.peek(syn::token::Paren) {
            let content;
            parenthesized!(content in input);
            let rest: TokenStream = content.parse()?;
            Some(rest)
        } else {
            None
        };
        let span = dot.span.join(method.span()).unwrap_or(method.span());
        // A library call always has arguments: `F.exp()` is method syntax on a tensor `F`.
        if namespace && args.as_ref().is_some_and(|a| !a.is_empty()) {
            let ours = crate::spellings::our_function_name(&method.to_string())
                .map_or_else(|| method.to_string(), str::to_string);
            let args = args
                .map(|a| a.to_string().replace(" ,", ","))
                .unwrap_or_default();
            return Err(syn::Error::new(
                span,
                format!(
                    "`{receiver}.{method}` is another library's spelling: a graph calls its functions by their bare names: write `{ours}({args})`"
                ),
            ));
        }
        let call = match args {
            Some(rest) if !rest.is_empty() => format!("{method}({receiver}, {rest})"),
            _ => format!("{method}({receiver})"),
        };
        return Err(syn::Error::new(
            span,
            format!("the graph language has no method syntax: write `{call}`"),
        ));
    }
    if input.peek(Token![::]) {
        let colons: Token![::] = input.parse()?;
        let item = if input.peek(Ident) {
            input.parse::<Ident>()?.to_string()
        } else {
            String::new()
        };
        let head = expr_text(&expr);
        // `torch::exp(x)`, `f32::max(a, b)`: a function by its path.
        let call = if input.peek(syn::token::Paren) {
            let content;
            parenthesized!(content in input);
            let args: TokenStream = content.parse()?;
            let name = crate::spellings::our_function_name(&item).unwrap_or(&item);
            Some(format!("{name}({})", args.to_string().replace(" ,", ",")))
        } else {
            None
        };
        let help = match item.as_str() {
            _ if call.is_some() => format!(
                "a graph calls its functions by their bare names: write `{}`",
                call.as_deref().unwrap_or_default()
            ),
            "INFINITY" => "write `inf`, a float literal that takes the other operand's dtype".to_string(),
            "NEG_INFINITY" => "write `-inf`, a float literal that takes the other operand's dtype".to_string(),
            "NAN" => "write `nan`, a float literal that takes the other operand's dtype".to_string(),
            _ => format!("constants are literals (`3.0`, `inf`, `nan`); to use a Rust value, add a scalar parameter (`c: {}`) and pass it", if DType::from_name(&head).is_some() { head.clone() } else { "f32".to_string() }),
        };
        return Err(syn::Error::new(
            colons.spans[0],
            format!("the graph language has no paths: `{head}::{item}` is not an expression here\nhelp: {help}"),
        ));
    }
    Ok(expr)
}

/// One item of NumPy indexing sugar.
enum IndexItem {
    /// `start:end:step`, each optional.
    Slice(Option<i128>, Option<i128>, Option<i128>),
    /// An integer: the axis is sliced to that element and removed.
    At(i128),
    /// `None`: a new axis of length 1.
    NewAxis,
    /// `...`: as many whole axes as the others leave.
    Ellipsis,
}

/// `x[:, 1:-1:2]`, `x[..., 0]`, `x[None]`, `x[2]` (docs/language.md, "Indexing sugar"):
/// NumPy's basic indexing as calls of `slice`, `squeeze` and `expand_dims`, with integer
/// literal bounds. Items before `...` (or all of them, without one) count axes from the
/// first; items after it from the last.
fn parse_index(input: ParseStream, x: Expr) -> syn::Result<Expr> {
    let content;
    let bracket = bracketed!(content in input);
    let span = bracket.span.join();
    let int = |input: ParseStream| -> syn::Result<Option<i128>> {
        let negative = input.peek(Token![-]) && input.peek2(LitInt);
        if !(negative || input.peek(LitInt)) {
            return Ok(None);
        }
        if negative {
            input.parse::<Token![-]>()?;
        }
        let lit: LitInt = input.parse()?;
        let v: i128 = lit.base10_parse()?;
        Ok(Some(if negative { -v } else { v }))
    };
    let mut items = Vec::new();
    while !content.is_empty() {
        let item = if content.peek(Token![...]) {
            content.parse::<Token![...]>()?;
            IndexItem::Ellipsis
        } else if content.peek(Ident) && content.fork().parse::<Ident>()? == "None" {
            content.parse::<Ident>()?;
            IndexItem::NewAxis
        } else {
            let start = int(&content)?;
            if content.peek(Token![::]) {
                content.parse::<Token![::]>()?;
                IndexItem::Slice(start, None, int(&content)?)
            } else if content.peek(Token![:]) {
                content.parse::<Token![:]>()?;
                let end = int(&content)?;
                let step = if content.peek(Token![:]) {
                    content.parse::<Token![:]>()?;
                    int(&content)?
                } else {
                    None
                };
                IndexItem::Slice(start, end, step)
            } else if let Some(i) = start {
                IndexItem::At(i)
            } else {
                return Err(content.error(format!(
                    "expected an index: an integer, a slice `start:end:step` of integer literals, `...` or `None`; found {}\nnote: indexing is NumPy's basic indexing with literal bounds; index with a tensor through `gather`",
                    found(&content)
                )));
            }
        };
        items.push(item);
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    if items
        .iter()
        .filter(|i| matches!(i, IndexItem::Ellipsis))
        .count()
        > 1
    {
        return Err(syn::Error::new(span, "an index has at most one `...`"));
    }
    let lit = |v: i128| -> Expr {
        let magnitude = Expr::Lit(LitValue::Int(v.unsigned_abs()), span);
        if v < 0 {
            Expr::Unary {
                op: UnOp::Neg,
                op_span: span,
                expr: Box::new(magnitude),
            }
        } else {
            magnitude
        }
    };
    let call = |name: &str, args: Vec<Expr>, named: Vec<(&str, i128)>| Expr::Call {
        func: Ident::new(name, span),
        args,
        named: named
            .into_iter()
            .map(|(n, v)| NamedArg {
                name: Ident::new(n, span),
                value: lit(v),
            })
            .collect(),
    };
    // One item at `axis`; returns the expression and how many axes it leaves there.
    let apply = |x: Expr, item: &IndexItem, axis: i128| -> (Expr, i128) {
        match *item {
            IndexItem::Slice(None, None, None | Some(1)) => (x, 1),
            IndexItem::Slice(start, end, step) => {
                let mut named = vec![("axis", axis)];
                named.extend(start.map(|v| ("start", v)));
                named.extend(end.map(|v| ("end", v)));
                named.extend(step.map(|v| ("step", v)));
                (call("slice", vec![x], named), 1)
            }
            IndexItem::At(i) => {
                let mut named = vec![("axis", axis), ("start", i)];
                if i != -1 {
                    named.push(("end", i + 1));
                }
                let one = call("slice", vec![x], named);
                (call("squeeze", vec![one, lit(axis)], Vec::new()), 0)
            }
            IndexItem::NewAxis => (call("expand_dims", vec![x, lit(axis)], Vec::new()), 1),
            IndexItem::Ellipsis => unreachable!("split off before"),
        }
    };
    let split = items.iter().position(|i| matches!(i, IndexItem::Ellipsis));
    let (front, back) = match split {
        Some(at) => (&items[..at], &items[at + 1..]),
        None => (&items[..], &items[..0]),
    };
    // The items after `...` first, from the last axis leftwards (negative axes), then the
    // items before it from the first (non-negative axes): neither changes the axes the
    // other counts.
    let mut x = x;
    let mut axis = -1i128;
    for item in back.iter().rev() {
        let (next, kept) = apply(x, item, axis);
        x = next;
        axis -= kept;
    }
    let mut axis = 0i128;
    for item in front {
        let (next, kept) = apply(x, item, axis);
        x = next;
        axis += kept;
    }
    Ok(x)
}

fn parse_primary_inner(input: ParseStream) -> syn::Result<Expr> {
    let lookahead = input.lookahead1();
    if lookahead.peek(LitInt) {
        let lit: LitInt = input.parse()?;
        if !lit.suffix().is_empty() {
            return Err(syn::Error::new(
                lit.span(),
                format!(
                    "literals in a graph are untyped: write `{}` or cast it with `as`",
                    lit.base10_digits()
                ),
            ));
        }
        let value = lit
            .base10_parse::<u128>()
            .map_err(|_| syn::Error::new(lit.span(), "integer literal is too large"))?;
        return Ok(Expr::Lit(LitValue::Int(value), lit.span()));
    }
    if lookahead.peek(LitFloat) {
        let lit: LitFloat = input.parse()?;
        if !lit.suffix().is_empty() {
            return Err(syn::Error::new(
                lit.span(),
                format!(
                    "literals in a graph are untyped: write `{}` or cast it with `as`",
                    lit.base10_digits()
                ),
            ));
        }
        let value = lit.base10_parse::<f64>()?;
        return Ok(Expr::Lit(
            LitValue::Float(value, lit.base10_digits().to_string()),
            lit.span(),
        ));
    }
    if lookahead.peek(syn::LitBool) {
        let lit: syn::LitBool = input.parse()?;
        return Ok(Expr::Lit(LitValue::Bool(lit.value), lit.span()));
    }
    if input.peek(syn::LitStr) {
        let lit: syn::LitStr = input.parse()?;
        return Ok(Expr::Lit(LitValue::Str(lit.value()), lit.span()));
    }
    if input.peek(syn::LitChar) {
        let lit: syn::LitChar = input.parse()?;
        return Ok(Expr::Lit(LitValue::Char(lit.value()), lit.span()));
    }
    if lookahead.peek(syn::token::Paren) {
        let content;
        parenthesized!(content in input);
        let expr = parse_expr(&content)?;
        if !content.is_empty() {
            let note = if content.peek(Token![,]) {
                "\nnote: a tuple is only allowed as the graph's output\n\
                 help: a list of axes or sizes is written in brackets: `[2, 0, 1]`"
            } else {
                ""
            };
            return Err(content.error(format!(
                "expected `)` or an operator, found {}{note}",
                found(&content)
            )));
        }
        return Ok(expr);
    }
    // `where` and `mod` are Rust keywords but graph functions, so any identifier goes.
    if lookahead.peek(Ident::peek_any) {
        let ident = Ident::parse_any(input)?;
        if input.peek(syn::token::Paren) {
            return parse_call(input, ident);
        }
        return Ok(Expr::Var(ident));
    }
    Err(input.error(format!(
        "expected an expression: a tensor or binding name, a literal, a call `f(…)` or `(`, found {}",
        found(input)
    )))
}

fn parse_call(input: ParseStream, func: Ident) -> syn::Result<Expr> {
    let content;
    parenthesized!(content in input);
    let mut args = Vec::new();
    let mut named = Vec::new();
    while !content.is_empty() {
        if content.peek(Ident::peek_any) && content.peek2(Token![=]) && !content.peek2(Token![==]) {
            let name = Ident::parse_any(&content)?;
            content.parse::<Token![=]>()?;
            let value = parse_arg_value(&content)?;
            named.push(NamedArg { name, value });
        } else {
            if !named.is_empty() {
                return Err(content.error("positional arguments come before named ones"));
            }
            // A list (`[1, 'x', 0]`) is an argument of shape ops, parsed like `axis = […]`.
            args.push(parse_arg_value(&content)?);
        }
        if content.is_empty() {
            break;
        }
        if !content.peek(Token![,]) {
            return Err(content.error(format!(
                "expected `,` or `)` after an argument of `{func}`, found {}",
                found(&content)
            )));
        }
        content.parse::<Token![,]>()?;
    }
    Ok(Expr::Call { func, args, named })
}

/// A named argument's value: an expression, a dtype (`dtype = f32`), or a list
/// (`axis = [0, 2]`) — the latter two are represented as calls named `[]`/dtype vars.
fn parse_arg_value(input: ParseStream) -> syn::Result<Expr> {
    if input.peek(syn::token::Bracket) {
        let content;
        let bracket = bracketed!(content in input);
        let mut items = Vec::new();
        while !content.is_empty() {
            items.push(parse_expr(&content)?);
            if content.is_empty() {
                break;
            }
            content.parse::<Token![,]>()?;
        }
        let span = bracket.span.join();
        return Ok(Expr::Call {
            func: Ident::new("__list", span),
            args: items,
            named: Vec::new(),
        });
    }
    parse_expr(input)
}

/// The DSL text of an expression, for hints that rewrite the user's code.
pub fn expr_text(e: &Expr) -> String {
    match e {
        Expr::Var(i) => i.to_string(),
        Expr::Lit(LitValue::Int(v), _) => v.to_string(),
        Expr::Lit(LitValue::Float(_, text), _) => text.clone(),
        Expr::Lit(LitValue::Bool(b), _) => b.to_string(),
        Expr::Lit(LitValue::Char(c), _) => format!("'{c}'"),
        Expr::Lit(LitValue::Str(text), _) => format!("{text:?}"),
        Expr::Unary { op, expr, .. } => {
            format!(
                "{}{}",
                if *op == UnOp::Neg { "-" } else { "!" },
                operand_text(expr)
            )
        }
        Expr::Binary { op, lhs, rhs, .. } => format!(
            "{} {} {}",
            operand_text(lhs),
            op.symbol(),
            operand_text(rhs)
        ),
        Expr::Cast { expr, to, .. } => format!("{} as {}", operand_text(expr), to.name()),
        Expr::Call { func, args, named } => {
            let mut parts: Vec<String> = args.iter().map(expr_text).collect();
            parts.extend(
                named
                    .iter()
                    .map(|n| format!("{} = {}", n.name, expr_text(&n.value))),
            );
            if func == "__list" {
                format!("[{}]", parts.join(", "))
            } else {
                format!("{func}({})", parts.join(", "))
            }
        }
    }
}

/// `expr_text`, parenthesised unless it is a name, literal or call: fit for `… as T`.
pub fn operand_text(e: &Expr) -> String {
    let text = expr_text(e);
    let text = if text.chars().count() > 40 {
        "…".to_string()
    } else {
        text
    };
    match e {
        Expr::Var(_) | Expr::Call { .. } => text,
        Expr::Lit(
            LitValue::Int(_)
            | LitValue::Float(..)
            | LitValue::Bool(_)
            | LitValue::Char(_)
            | LitValue::Str(_),
            _,
        ) => text,
        _ => format!("({text})"),
    }
}
