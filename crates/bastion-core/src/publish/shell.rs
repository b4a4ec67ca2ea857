//! Shell metacharacters in the parts of a `server.json` package that become a command
//! line (`runtimeHint`, `runtimeArguments`, `packageArguments`).
//!
//! The MCP Registry schema warns that arguments "construct command-line parameters" and
//! that a value such as `;rm -rf ~/Development` runs commands when a client uses a shell.
//! Characters judged (POSIX Shell Command Language §2.2 and §2.6, bash "metacharacter"):
//! `;` `&` `|` `$` backtick `(` `)` `<` `>` `\` `"` `'`, newline and carriage return, other C0 controls, and
//! `{ }` outside a registry template variable (`{name}`, which the client substitutes
//! before spawning). A `runtimeHint` names one program, so blanks count there too.

/// Where the text sits, which decides whether blanks split words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellField {
    /// `runtimeHint`: one program name (`npx`, `uvx`, `docker`, `dnx`).
    Program,
    /// An argument `name`, `value`, `default`, `valueHint` or choice: one argv element
    /// (blanks allowed, they stay inside the element when spawned without a shell).
    Argument,
}

/// The first shell metacharacter of `text` in `field`, if any.
pub fn first_metachar(text: &str, field: ShellField) -> Option<char> {
    let stripped = fill_template_variables(text);
    stripped.chars().find(|&c| {
        matches!(
            c,
            ';' | '&' | '|' | '$' | '`' | '(' | ')' | '<' | '>' | '\\' | '"' | '\'' | '{' | '}'
        ) || c.is_control()
            || (field == ShellField::Program && c.is_whitespace())
    })
}

/// `text` without its well-formed `{identifier}` template variables (identifier:
/// ASCII letters, digits, `_`, `-`, `.`; non-empty), each replaced by `x`.
pub(crate) fn fill_template_variables(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close)
                if close > 0
                    && after[..close]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) =>
            {
                out.push('x');
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::{ShellField::*, first_metachar};

    #[test]
    fn finds_metacharacters() {
        assert_eq!(first_metachar(";rm -rf ~/x", Argument), Some(';'));
        assert_eq!(first_metachar("$(curl x)", Argument), Some('$'));
        assert_eq!(first_metachar("a`id`", Argument), Some('`'));
        assert_eq!(first_metachar("x\ny", Argument), Some('\n'));
        assert_eq!(first_metachar("npx && sh", Program), Some(' '));
        assert_eq!(first_metachar("npx -y", Program), Some(' '));
        assert_eq!(first_metachar("${HOME}", Argument), Some('$'));
        assert_eq!(first_metachar("{a b}", Argument), Some('{'));
        assert_eq!(first_metachar("}{", Argument), Some('}'));
    }

    #[test]
    fn keeps_ordinary_arguments() {
        for ok in [
            "--port={port}",
            "type=bind,src={source_path},dst=/data",
            "-e",
            "API_BASE=https://api.example.com/v1",
            "my file.txt",
            "@scope/pkg@1.0.0",
        ] {
            assert_eq!(first_metachar(ok, Argument), None, "{ok}");
        }
        for ok in ["npx", "uvx", "docker", "dnx", "python3.12"] {
            assert_eq!(first_metachar(ok, Program), None, "{ok}");
        }
    }
}
