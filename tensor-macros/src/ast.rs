//! The syntax tree of the graph language and its parsers. Every node keeps the span
//! that errors about it point at: an operator's token for binary/unary ops, the
//! function name for calls, the literal itself for literals.
//!
//! Grammar (precedence and associativity follow Rust's):
//! ```text
//! input    := path ';' (item+ | closure)            // path is the runtime, `$crate`
//! item     := attr* vis 'fn' ident '(' params ')' '->' type block
//! closure  := '|' params '|' ('->' type)? (block | expr)
//! param    := ident ':' dtype ('[' dims? ']')?
//! type     := dtype '[' dims? ']' | '(' type (',' type)* ','? ')'
//! block    := '{' ('let' ident '=' expr ';')* outputs '}'
//! outputs  := expr | '(' expr (',' expr)+ ','? ')'
//! expr     := unary (binop unary)* | expr 'as' dtype
//! unary    := ('-' | '!') unary | primary
//! primary  := literal | 'true' | 'false' | ident | ident '(' args ')' | '(' expr ')'
//! args     := (expr | ident '=' arg_value) (',' ...)*
//! ```

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{braced, bracketed, parenthesized, Attribute, Ident, LitFloat, LitInt, Token, Visibility};

use crate::dtype::DType;

/// Everything inside `graph!`: the runtime path, then items or one closure.
pub struct GraphInput {
    pub runtime: TokenStream,
    pub body: GraphBody,
}

pub enum GraphBody {
    Items(Vec<GraphFn>),
    Closure(GraphFn),
}

/// A graph function: the item form, or the closure form (`name` is then synthetic).
pub struct GraphFn {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub params: Vec<Param>,
    /// Absent only in the closure form, where the output type is inferred.
    pub ret: Option<ReturnType>,
    pub lets: Vec<Let>,
    pub outputs: Outputs,
}

pub struct Param {
    pub name: Ident,
    pub ty: ParamType,
}

#[derive(Clone)]
pub struct ParamType {
    pub dtype: DType,
    /// `None` for a bare dtype (a run-time scalar), `Some(vec![])` for rank 0.
    pub dims: Option<Vec<usize>>,
    pub span: Span,
}

pub enum ReturnType {
    Single(ParamType),
    Tuple(Vec<ParamType>),
}

pub struct Let {
    pub name: Ident,
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
        matches!(self, BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
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
}

#[derive(Clone)]
pub enum Expr {
    Var(Ident),
    Lit(LitValue, Span),
    Unary { op: UnOp, op_span: Span, expr: Box<Expr> },
    Binary { op: BinOp, op_span: Span, lhs: Box<Expr>, rhs: Box<Expr> },
    Cast { expr: Box<Expr>, as_span: Span, to: DType },
    Call { func: Ident, args: Vec<Expr>, named: Vec<NamedArg> },
}

#[derive(Clone)]
pub struct NamedArg {
    pub name: Ident,
    pub value: Expr,
}

impl Expr {
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
        // The runtime path arrives first, written by the `graph!` wrapper: `$crate ;`.
        let mut runtime = TokenStream::new();
        while !input.peek(Token![;]) {
            let tt: proc_macro2::TokenTree = input.parse()?;
            runtime.extend(Some(tt));
        }
        input.parse::<Token![;]>()?;
        let body = if input.peek(Token![|]) {
            let closure = parse_closure(input)?;
            if !input.is_empty() {
                return Err(input.error("unexpected tokens after the graph closure"));
            }
            GraphBody::Closure(closure)
        } else {
            let mut items = Vec::new();
            while !input.is_empty() {
                items.push(parse_item(input)?);
            }
            if items.is_empty() {
                return Err(input.error(
                    "expected a graph function `fn name(x: f32[4]) -> f32[4] { … }` or a closure `|x: f32[4]| …`",
                ));
            }
            GraphBody::Items(items)
        };
        Ok(GraphInput { runtime, body })
    }
}

fn parse_item(input: ParseStream) -> syn::Result<GraphFn> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis: Visibility = input.parse()?;
    input.parse::<Token![fn]>()?;
    let name: Ident = input.parse()?;
    let content;
    parenthesized!(content in input);
    let params = parse_params(&content)?;
    if !input.peek(Token![->]) {
        return Err(input.error(format!(
            "expected `->` and the output type after the parameters of `{name}`, e.g. `-> f32[4, 8]`"
        )));
    }
    input.parse::<Token![->]>()?;
    let ret = parse_return_type(input)?;
    let body;
    braced!(body in input);
    let (lets, outputs) = parse_block_contents(&body)?;
    Ok(GraphFn { attrs, vis, name, params, ret: Some(ret), lets, outputs })
}

fn parse_closure(input: ParseStream) -> syn::Result<GraphFn> {
    input.parse::<Token![|]>()?;
    let mut params = Vec::new();
    while !input.peek(Token![|]) {
        params.push(input.parse()?);
        if input.peek(Token![|]) {
            break;
        }
        input.parse::<Token![,]>()?;
    }
    input.parse::<Token![|]>()?;
    let ret = if input.peek(Token![->]) {
        input.parse::<Token![->]>()?;
        Some(parse_return_type(input)?)
    } else {
        None
    };
    let (lets, outputs) = if input.peek(syn::token::Brace) {
        let body;
        braced!(body in input);
        parse_block_contents(&body)?
    } else {
        (Vec::new(), parse_outputs(input)?)
    };
    Ok(GraphFn {
        attrs: Vec::new(),
        vis: Visibility::Inherited,
        name: Ident::new("__tg_graph", Span::call_site()),
        params,
        ret,
        lets,
        outputs,
    })
}

fn parse_params(input: ParseStream) -> syn::Result<Vec<Param>> {
    let list = input.parse_terminated(Param::parse, Token![,])?;
    Ok(list.into_iter().collect())
}

impl Parse for Param {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let name: Ident = input.parse()?;
        input.parse::<Token![:]>()?;
        let ty: ParamType = input.parse()?;
        Ok(Param { name, ty })
    }
}

impl Parse for ParamType {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let (dtype, dtype_span) = parse_dtype(input)?;
        let mut span = dtype_span;
        let dims = if input.peek(syn::token::Bracket) {
            let content;
            let bracket = bracketed!(content in input);
            span = dtype_span.join(bracket.span.join()).unwrap_or(dtype_span);
            let mut dims = Vec::new();
            while !content.is_empty() {
                dims.push(parse_dim(&content)?);
                if content.is_empty() {
                    break;
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
        Ok(ParamType { dtype, dims, span })
    }
}

fn parse_dim(input: ParseStream) -> syn::Result<usize> {
    if !input.peek(LitInt) {
        return Err(input.error("expected a dimension: a non-negative integer literal such as `4`"));
    }
    let lit: LitInt = input.parse()?;
    if !lit.suffix().is_empty() {
        return Err(syn::Error::new(lit.span(), "a dimension is a plain integer literal, without a suffix"));
    }
    lit.base10_parse::<usize>()
        .map_err(|_| syn::Error::new(lit.span(), "a dimension must be a non-negative integer that fits in usize"))
}

pub fn parse_dtype(input: ParseStream) -> syn::Result<(DType, Span)> {
    let ident = Ident::parse_any(input)
        .map_err(|e| syn::Error::new(e.span(), format!("expected a dtype, one of {}", DType::ALL_NAMES)))?;
    match DType::from_name(&ident.to_string()) {
        Some(dtype) => Ok((dtype, ident.span())),
        None => Err(syn::Error::new(
            ident.span(),
            format!("unknown dtype `{ident}`: expected one of {}", DType::ALL_NAMES),
        )),
    }
}

fn parse_return_type(input: ParseStream) -> syn::Result<ReturnType> {
    if input.peek(syn::token::Paren) {
        let content;
        parenthesized!(content in input);
        let list = content.parse_terminated(ParamType::parse, Token![,])?;
        let tys: Vec<ParamType> = list.into_iter().collect();
        if tys.len() == 1 {
            return Ok(ReturnType::Single(tys.into_iter().next().expect("one element")));
        }
        Ok(ReturnType::Tuple(tys))
    } else {
        let ty: ParamType = input.parse()?;
        if ty.dims.is_none() {
            return Err(syn::Error::new(
                ty.span,
                format!("a graph output is a tensor: write `{}[]` for rank 0 or `{}[d0, …]`", ty.dtype.name(), ty.dtype.name()),
            ));
        }
        Ok(ReturnType::Single(ty))
    }
}

fn parse_block_contents(input: ParseStream) -> syn::Result<(Vec<Let>, Outputs)> {
    let mut lets = Vec::new();
    while input.peek(Token![let]) {
        input.parse::<Token![let]>()?;
        let name: Ident = input.parse()?;
        input.parse::<Token![=]>()?;
        let value = parse_expr(input)?;
        input.parse::<Token![;]>()?;
        lets.push(Let { name, value });
    }
    if input.is_empty() {
        return Err(input.error("expected the graph's output expression after its `let` bindings"));
    }
    let outputs = parse_outputs(input)?;
    if !input.is_empty() {
        return Err(input.error("expected the end of the graph body: the output expression comes last, without `;`"));
    }
    Ok((lets, outputs))
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
                return Err(content.error("expected `,` or `)`"));
            }
            if fork.is_empty() {
                use syn::parse::discouraged::Speculative;
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

/// Precedence climbing over Rust's operator table; `as` binds tighter than any binary op.
fn parse_binary(input: ParseStream, min_precedence: u8) -> syn::Result<Expr> {
    let mut lhs = parse_cast(input)?;
    while let Some(op) = peek_binop(input) {
        let precedence = op.precedence();
        if precedence < min_precedence {
            break;
        }
        let op_span = parse_binop_token(input, op)?;
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
        lhs = Expr::Binary { op, op_span, lhs: Box::new(lhs), rhs: Box::new(rhs) };
    }
    Ok(lhs)
}

fn parse_cast(input: ParseStream) -> syn::Result<Expr> {
    let mut expr = parse_unary(input)?;
    while input.peek(Token![as]) {
        let as_span = input.parse::<Token![as]>()?.span();
        let (to, _) = parse_dtype(input)?;
        expr = Expr::Cast { expr: Box::new(expr), as_span, to };
    }
    Ok(expr)
}

fn parse_unary(input: ParseStream) -> syn::Result<Expr> {
    if input.peek(Token![-]) {
        let op_span = input.parse::<Token![-]>()?.span();
        let expr = parse_unary(input)?;
        return Ok(Expr::Unary { op: UnOp::Neg, op_span, expr: Box::new(expr) });
    }
    if input.peek(Token![!]) {
        let op_span = input.parse::<Token![!]>()?.span();
        let expr = parse_unary(input)?;
        return Ok(Expr::Unary { op: UnOp::Not, op_span, expr: Box::new(expr) });
    }
    parse_primary(input)
}

fn parse_primary(input: ParseStream) -> syn::Result<Expr> {
    let lookahead = input.lookahead1();
    if lookahead.peek(LitInt) {
        let lit: LitInt = input.parse()?;
        if !lit.suffix().is_empty() {
            return Err(syn::Error::new(
                lit.span(),
                format!("literals in a graph are untyped: write `{}` or cast it with `as`", lit.base10_digits()),
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
                format!("literals in a graph are untyped: write `{}` or cast it with `as`", lit.base10_digits()),
            ));
        }
        let value = lit.base10_parse::<f64>()?;
        return Ok(Expr::Lit(LitValue::Float(value, lit.base10_digits().to_string()), lit.span()));
    }
    if lookahead.peek(syn::LitBool) {
        let lit: syn::LitBool = input.parse()?;
        return Ok(Expr::Lit(LitValue::Bool(lit.value), lit.span()));
    }
    if lookahead.peek(syn::token::Paren) {
        let content;
        parenthesized!(content in input);
        let expr = parse_expr(&content)?;
        if !content.is_empty() {
            return Err(content.error("expected `)`: a tuple is only allowed as the graph's output"));
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
    Err(lookahead.error())
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
            args.push(parse_expr(&content)?);
        }
        if content.is_empty() {
            break;
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
        return Ok(Expr::Call { func: Ident::new("__list", span), args: items, named: Vec::new() });
    }
    parse_expr(input)
}
