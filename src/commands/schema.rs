//! `mastermind-hooks schema NAME`: print an embedded JSON Schema.

use crate::commands::emit;
use crate::diagnostic::ExitStatus;
use crate::schema::SchemaId;

pub fn run(name: Option<&str>) -> ExitStatus {
    let Some(name) = name else {
        let list: String = SchemaId::ALL
            .iter()
            .map(|id| format!("{}\n", id.name()))
            .collect();
        return match emit(&list) {
            Ok(()) => ExitStatus::Pass,
            Err(_) => ExitStatus::CannotCheck,
        };
    };
    match SchemaId::from_name(name) {
        Some(id) => match emit(id.source()) {
            Ok(()) => ExitStatus::Pass,
            Err(_) => ExitStatus::CannotCheck,
        },
        None => {
            eprintln!(
                "error: unknown schema `{name}`{}; known schemas: {}",
                crate::suggest::did_you_mean(name, SchemaId::ALL.iter().map(|id| id.name())),
                SchemaId::ALL
                    .iter()
                    .map(|id| id.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            ExitStatus::CannotCheck
        }
    }
}
