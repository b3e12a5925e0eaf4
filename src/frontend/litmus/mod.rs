//! The herd litmus skeleton shared by the Vulkan and OpenCL dialects: one
//! tokenizer (`lexer`), the header (`header`), and the final section with
//! its condition grammar (`condition`), parsed once; what the dialects write
//! differently is a `Syntax` value (options of that one parser), not a
//! second parser. The same parser reads `--outcome` text
//! ([`crate::frontend::parse_outcome`]) against [`crate::ir::Symbols`].
//!
//! A test reads
//!
//! ```text
//! test      ::= header body final
//! header    ::= ARCH [name] { '"' text '"' | '(*' text '*)' | word }
//!                  (ARCH is VULKAN or OPENCL in any case; the name defaults
//!                   to the file's stem; stray words may not hold ;|}=@: )
//! body      ::= the dialect's initial state and threads
//! final     ::= { ';' | 'locations' '[' { location | ';' } ']'
//!               | 'filter' prop | quantifier prop }
//!                  (at most one `locations`, one `filter`, one quantifier)
//! quantifier::= 'exists' | '~' 'exists' | 'not' 'exists' | 'forall'
//! prop      ::= conj { '\/' conj }
//! conj      ::= impl { '/\' impl }
//! impl      ::= unary [ '=>' impl ]
//! unary     ::= ( '~' | 'not' | '!' ) unary    ('!' in OpenCL only)
//!             | '(' prop ')' | 'true' | 'false' | term cmp term
//! cmp       ::= '==' | '=' | '!='
//! term      ::= thread ':' register | location | '[' location ']' | ['-'] digits
//! thread    ::= 'P' digits | digits
//! location  ::= name                          (Vulkan: a reference, aliases too)
//!             | name [ '@' name [ '.' name ] ] (OpenCL: `y@wg0`, `y@dev1.wg0`)
//! ```
//!
//! Precedences follow herd7 (`lib/stateParser.mly`): `~` binds tightest,
//! then `=>` (right-associative, so `a /\ b => c` is `a /\ (b => c)`), then
//! `/\`, then `\/`. `a => b` is read as `~a \/ b`. `(* ... *)` comments may
//! appear between tokens (OpenCL also skips `//` and `/* */` comments).
//!
//! Rejected with a located error, because vkmm's conditions cannot give them
//! a meaning: the orderings `<`, `<=`, `>`, `>=` (Dat3M accepts them);
//! herd's `final ... with` expectation lists and `observed`; registers in
//! `locations [...]` (registers are always shown); array cells `x[1]`,
//! pointers `*x`, hexadecimal constants and `fault(...)`, which fail as
//! unexpected tokens. Parentheses, negations and implications nest at most
//! [`super::MAX_NESTING`] deep; long flat chains of `/\` or `\/` are
//! parsed iteratively, folded to the left while the tree stays at most 256
//! tall, and into a balanced tree beyond.
//!
//! Every error is located: 1-based line and column of the offending token
//! (for `--outcome`, file `--outcome`, line 1).

pub(crate) mod condition;
pub(crate) mod header;
pub(crate) mod lexer;

use super::FrontendError;
use crate::ir::{CondExpr, Dialect, Program};
use condition::{CondSyntax, TextStyle};
use lexer::{LexOptions, Src};

/// How a dialect writes the skeleton.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Syntax {
    pub(crate) lex: LexOptions,
    pub(crate) cond: CondSyntax,
}

impl Syntax {
    pub(crate) fn of(dialect: Dialect) -> Syntax {
        match dialect {
            Dialect::Vulkan => Syntax {
                lex: lexer::VULKAN,
                cond: CondSyntax {
                    bang_negation: false,
                    instance_names: false,
                    text: TextStyle::Source,
                    spirv: false,
                },
            },
            Dialect::OpenCl => Syntax {
                lex: lexer::OPENCL,
                cond: CondSyntax {
                    bang_negation: true,
                    instance_names: true,
                    text: TextStyle::Tokens,
                    spirv: false,
                },
            },
        }
    }
}

/// Parses an outcome against a loaded program's symbol table.
pub(crate) fn parse_outcome(program: &Program, outcome: &str) -> Result<CondExpr, FrontendError> {
    let syntax = Syntax::of(program.dialect);
    let src = Src::new(outcome);
    condition::whole_expression(&src, syntax.lex, &syntax.cond, &program.symbols)
        .map_err(|e| src.error("--outcome", e))
}

#[cfg(test)]
mod tests;
