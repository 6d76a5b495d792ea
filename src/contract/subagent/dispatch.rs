//! A subagent return judged by its dispatch description (seed 004 section
//! 4.4): the per-role schema, envelope sanity only, or silent allow.
//!
//! **Provisional.** This is the agent hooks' stand-in, built on
//! [`super::routing::route`] and [`super::returns::check`]; the rewrite of
//! the subagent-return contract replaces this file with the same signature.
//! Callers use only [`check_dispatched`].
//!
//! * A description starting `j-` or `sj-` (a bare journey slug) is a
//!   free-form return: silent allow, nothing is parsed.
//! * A routed prefix (or a schema name) gets its role's two layers.
//! * A no-schema prefix (`process-validator-`, `phase1-`, ...) gets the
//!   envelope sanity check.
//! * Anything else routes nowhere: `Unknown`, no diagnostics; the caller
//!   decides what an unrouted dispatch means.

use super::returns;
use super::routing::{self, ReturnRole, Route};
use crate::diagnostic::Diagnostic;

/// Where a dispatch description sends its return.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DispatchRoute {
    Schema(ReturnRole),
    EnvelopeOnly,
    SilentAllow,
    Unknown,
}

/// The route and what the contract found.
#[derive(Clone, Debug, PartialEq)]
pub struct DispatchOutcome {
    pub route: DispatchRoute,
    pub diagnostics: Vec<Diagnostic>,
}

/// The prefixes of free-form returns (section 4.4: "bare `j-` / bare `sj-`").
const SILENT_PREFIXES: &[&str] = &["j-", "sj-"];

/// Judge the return `bytes` of a subagent dispatched with `description`.
pub fn check_dispatched(bytes: &[u8], description: &str) -> DispatchOutcome {
    let text = description.trim();
    if SILENT_PREFIXES.iter().any(|p| text.starts_with(p)) {
        return DispatchOutcome {
            route: DispatchRoute::SilentAllow,
            diagnostics: Vec::new(),
        };
    }
    let (route, role_option) = match routing::route(text) {
        Route::Schema(role) => (DispatchRoute::Schema(role), role.name()),
        Route::EnvelopeOnly => (DispatchRoute::EnvelopeOnly, text),
        Route::Unknown => {
            return DispatchOutcome {
                route: DispatchRoute::Unknown,
                diagnostics: Vec::new(),
            };
        }
    };
    let (_, diagnostics) = returns::check(bytes, Some(role_option));
    DispatchOutcome { route, diagnostics }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Code;

    #[test]
    fn routes_by_description() {
        let probe = br#"{"handover": {"role": "probe-j-cart", "cycle": 1, "status": "clean", "next-action": "advance"}, "journey": "j-cart"}"#;
        let outcome = check_dispatched(probe, "probe-j-cart: probe the cart");
        assert_eq!(outcome.route, DispatchRoute::Schema(ReturnRole::Probe));
        assert!(
            outcome.diagnostics.iter().all(|d| !d.is_error()),
            "{:?}",
            outcome.diagnostics
        );
        let broken = check_dispatched(b"All done, tests pass.", "probe-j-cart: probe");
        assert!(
            broken
                .diagnostics
                .iter()
                .any(|d| d.code == Code::subagent_return_not_mapping)
        );
    }

    #[test]
    fn silent_envelope_and_unknown() {
        for text in ["j-login: explore", "sj-cart"] {
            let outcome = check_dispatched(b"free prose", text);
            assert_eq!(outcome.route, DispatchRoute::SilentAllow);
            assert!(outcome.diagnostics.is_empty());
        }
        let envelope = check_dispatched(
            b"{\"handover\": {\"role\": \"cleanup-x\", \"cycle\": 1, \"status\": \"done\", \"next-action\": \"go\"}}",
            "cleanup-ledger: dedup",
        );
        assert_eq!(envelope.route, DispatchRoute::EnvelopeOnly);
        let unknown = check_dispatched(b"anything", "Find the API endpoints");
        assert_eq!(unknown.route, DispatchRoute::Unknown);
        assert!(unknown.diagnostics.is_empty());
    }
}
