//! The platforms' own formats, as the tests judge outputs against them: the
//! SARIF 2.1.0 schema OASIS publishes, GitLab's Code Quality report format
//! (a JSON Schema of the fields GitLab documents) and the JUnit XML schema
//! (junit-10.xsd), all under `tests/data/` (its README says where each
//! comes from).

use serde_json::Value;
use std::path::Path;
use std::sync::OnceLock;

pub fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

// ---- SARIF ---------------------------------------------------------------

pub fn sarif_validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        let text = std::fs::read_to_string(data("sarif-schema-2.1.0.json")).unwrap();
        let schema: Value = serde_json::from_str(&text).unwrap();
        jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .expect("the SARIF 2.1.0 schema compiles")
    })
}

pub fn assert_valid_sarif(log: &Value) {
    let errors: Vec<String> = sarif_validator()
        .iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF violates the 2.1.0 schema:\n{}",
        errors.join("\n")
    );
}

// ---- GitLab Code Quality ---------------------------------------------------

pub fn code_quality_validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(data("gitlab-code-quality-report.schema.json")).unwrap();
    jsonschema::validator_for(&serde_json::from_str::<Value>(&text).unwrap()).unwrap()
}

/// A Code Quality report that breaks GitLab's documented format fails.
pub fn assert_valid_code_quality(report: &Value) {
    let errors: Vec<String> = code_quality_validator()
        .iter_errors(report)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "Code Quality report: {errors:?}");
}

// ---- JUnit ----------------------------------------------------------------

/// junit-10.xsd as a table: for each element, its attributes (and which
/// are required), the child elements it may hold, and whether it is text.
pub struct Xsd {
    elements: std::collections::HashMap<String, XsdElement>,
}

#[derive(Default, Clone)]
struct XsdElement {
    attributes: Vec<(String, bool)>,
    children: Vec<String>,
    text_only: bool,
}

impl Xsd {
    pub fn load() -> Xsd {
        let text = std::fs::read_to_string(data("junit-10.xsd")).unwrap();
        let doc = roxmltree::Document::parse(&text).unwrap();
        let schema = doc.root_element();
        let complex = |node: roxmltree::Node| {
            let mut element = XsdElement::default();
            for d in node.descendants() {
                if d.has_tag_name("attribute") {
                    element.attributes.push((
                        d.attribute("name").unwrap().to_string(),
                        d.attribute("use") == Some("required"),
                    ));
                }
                if d.has_tag_name("element") {
                    let child = d.attribute("ref").or(d.attribute("name")).unwrap();
                    element.children.push(child.to_string());
                }
            }
            element
        };
        let named: std::collections::HashMap<&str, XsdElement> = schema
            .children()
            .filter(|n| n.has_tag_name("complexType"))
            .map(|n| (n.attribute("name").unwrap(), complex(n)))
            .collect();
        let mut elements = std::collections::HashMap::new();
        for node in schema.children().filter(|n| n.has_tag_name("element")) {
            let name = node.attribute("name").unwrap().to_string();
            let element = match node.attribute("type") {
                Some("xs:string") => XsdElement {
                    text_only: true,
                    ..XsdElement::default()
                },
                Some(t) => named[t].clone(),
                None => complex(
                    node.children()
                        .find(|c| c.has_tag_name("complexType"))
                        .unwrap(),
                ),
            };
            elements.insert(name, element);
        }
        Xsd { elements }
    }

    pub fn check(&self, node: roxmltree::Node, errors: &mut Vec<String>) {
        let name = node.tag_name().name();
        let Some(element) = self.elements.get(name) else {
            errors.push(format!("<{name}> is not in the schema"));
            return;
        };
        for attribute in node.attributes() {
            if !element
                .attributes
                .iter()
                .any(|(a, _)| a == attribute.name())
            {
                errors.push(format!("<{name}> may not have `{}`", attribute.name()));
            }
        }
        for (attribute, required) in &element.attributes {
            if *required && node.attribute(attribute.as_str()).is_none() {
                errors.push(format!("<{name}> lacks the required `{attribute}`"));
            }
        }
        for child in node.children().filter(|c| c.is_element()) {
            let child_name = child.tag_name().name();
            if element.text_only || !element.children.iter().any(|c| c == child_name) {
                errors.push(format!("<{name}> may not hold <{child_name}>"));
            }
            self.check(child, errors);
        }
    }
}

pub fn assert_valid_junit(xml: &str) {
    let doc = roxmltree::Document::parse(xml).expect("well-formed XML");
    let mut errors = Vec::new();
    Xsd::load().check(doc.root_element(), &mut errors);
    assert!(errors.is_empty(), "junit-10.xsd: {errors:?}\n{xml}");
    assert_eq!(doc.root_element().tag_name().name(), "testsuites");
}
