//! Warnings a front end gives about a program: part of the program, so
//! that every reader of it (the command line, the playground, a suite's
//! report) can show them beside its answer.

/// Something legal but probably not what the author meant (the "Lints"
/// tables of docs/format-*.md list each one). Warnings travel with the
/// program ([`super::Program::warnings`]); the CLI prints them on stderr as
/// `file:line:column: warning: message`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FrontendWarning {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for FrontendWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: warning: {}",
            self.file, self.line, self.column, self.message
        )
    }
}
