//! Sentinel-pair extraction: the YAML fence between `<!-- begin -->` and
//! `<!-- end -->` marker lines, exactly as the reference controller finds it.
//!
//! A marker is a line equal to the marker text after trimming the end only
//! (trailing spaces, tabs and `\r` are fine; leading spaces are not). Markers
//! are found anywhere, fenced code included: there is no Markdown awareness.

/// Why no YAML could be extracted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SentinelError {
    /// Not exactly one begin line before exactly one end line.
    Pair,
    /// The span between the markers is not one complete ```` ```yaml ```` fence.
    /// Carries the 1-based line of the begin marker.
    Fence { begin_line: u32 },
}

/// YAML text found between the markers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extracted {
    /// The fenced lines joined with `\n`.
    pub yaml: String,
    /// Number of file lines before the first YAML line.
    pub lines_before: u32,
}

/// The full marker line for a marker name (`mastermind:report-begin`).
pub fn marker_line(name: &str) -> String {
    format!("<!-- {name} -->")
}

fn is_marker(line: &str, marker: &str) -> bool {
    line.trim_end() == marker
}

/// True when any line of `text` is the marker `name`.
pub fn has_marker(text: &str, name: &str) -> bool {
    let marker = marker_line(name);
    text.lines().any(|line| is_marker(line, &marker))
}

/// The 1-based lines on which the marker `name` appears.
pub fn marker_lines(text: &str, name: &str) -> Vec<u32> {
    let lines: Vec<&str> = text.lines().collect();
    positions(&lines, name)
        .into_iter()
        .map(|index| to_u32(index + 1))
        .collect()
}

fn positions(lines: &[&str], name: &str) -> Vec<usize> {
    let marker = marker_line(name);
    lines
        .iter()
        .enumerate()
        .filter_map(|(index, line)| is_marker(line, &marker).then_some(index))
        .collect()
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Extract the YAML of the one ordered `begin`/`end` pair.
pub fn extract(text: &str, begin: &str, end: &str) -> Result<Extracted, SentinelError> {
    let lines: Vec<&str> = text.lines().collect();
    let (starts, ends) = (positions(&lines, begin), positions(&lines, end));
    let (&[start], &[finish]) = (starts.as_slice(), ends.as_slice()) else {
        return Err(SentinelError::Pair);
    };
    if start >= finish {
        return Err(SentinelError::Pair);
    }
    let mut first = start + 1;
    let mut last = finish; // exclusive
    while first < last && lines[first].trim().is_empty() {
        first += 1;
    }
    while last > first && lines[last - 1].trim().is_empty() {
        last -= 1;
    }
    let fence_error = SentinelError::Fence {
        begin_line: to_u32(start + 1),
    };
    if last - first < 2 || lines[first].trim() != "```yaml" || lines[last - 1].trim() != "```" {
        return Err(fence_error);
    }
    Ok(Extracted {
        yaml: lines[first + 1..last - 1].join("\n"),
        lines_before: to_u32(first + 1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const B: &str = "mastermind:report-begin";
    const E: &str = "mastermind:report-end";

    #[test]
    fn extracts_the_fenced_yaml_with_its_file_offset() {
        let text = "prose\n<!-- mastermind:report-begin -->  \r\n\n```yaml\na: 1\nb: 2\n```\n\n<!-- mastermind:report-end -->\ntrailing";
        let got = extract(text, B, E).unwrap();
        assert_eq!(got.yaml, "a: 1\nb: 2");
        assert_eq!(got.lines_before, 4, "a: 1 is on file line 5");
    }

    #[test]
    fn marker_rules() {
        let fence = "```yaml\na: 1\n```\n";
        let ok = format!("<!-- {B} -->\n{fence}<!-- {E} -->\n");
        assert!(extract(&ok, B, E).is_ok());
        // Leading space disqualifies the marker line.
        let indented = format!(" <!-- {B} -->\n{fence}<!-- {E} -->\n");
        assert_eq!(extract(&indented, B, E), Err(SentinelError::Pair));
        // Two pairs, doubled begin, reversed order: all rejected.
        assert_eq!(
            extract(&format!("{ok}{ok}"), B, E),
            Err(SentinelError::Pair)
        );
        let doubled = format!("<!-- {B} -->\n<!-- {B} -->\n{fence}<!-- {E} -->\n");
        assert_eq!(extract(&doubled, B, E), Err(SentinelError::Pair));
        let reversed = format!("<!-- {E} -->\n{fence}<!-- {B} -->\n");
        assert_eq!(extract(&reversed, B, E), Err(SentinelError::Pair));
    }

    #[test]
    fn fence_rules() {
        for inner in [
            "```yml\na: 1\n```",
            "```YAML\na: 1\n```",
            "```\na: 1\n```",
            "a: 1",
            "```yaml",
            "```yaml\na: 1",
        ] {
            let text = format!("<!-- {B} -->\n{inner}\n<!-- {E} -->\n");
            assert_eq!(
                extract(&text, B, E),
                Err(SentinelError::Fence { begin_line: 1 }),
                "{inner:?}"
            );
        }
        // Inner ``` lines are not special and the fence line may be indented.
        let text = format!("<!-- {B} -->\n  ```yaml\na: |\n  ```\n  x\n```\n<!-- {E} -->\n");
        assert_eq!(extract(&text, B, E).unwrap().yaml, "a: |\n  ```\n  x");
        // Empty fence is complete (two lines).
        let text = format!("<!-- {B} -->\n```yaml\n```\n<!-- {E} -->\n");
        assert_eq!(extract(&text, B, E).unwrap().yaml, "");
    }
}
