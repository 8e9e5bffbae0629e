//! Checking a language model's summary against the figures it was given: every number it cites
//! must be one of them (as written, rounded, or as a percentage of a fraction). A summary that
//! introduces a number of its own is refused and the deterministic narrator's text stands.

/// The numbers written in `text`: digits with an optional sign, thousands separators and decimals
/// ("1,234.5", "-0.88", "29.06x", "6.9%" → 1234.5, -0.88, 29.06, 6.9).
pub fn cited_numbers(text: &str) -> Vec<f64> {
    let bytes = text.as_bytes();
    let mut numbers = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() {
            let negative = i > 0 && bytes[i - 1] == b'-' && (i < 2 || !bytes[i - 2].is_ascii_alphanumeric());
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_digit()
                    || ((bytes[i] == b',' || bytes[i] == b'.') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)))
            {
                i += 1;
            }
            let digits: String = text[start..i].chars().filter(|c| *c != ',').collect();
            if let Ok(value) = digits.parse::<f64>() {
                numbers.push(if negative { -value } else { value });
            }
        } else {
            i += 1;
        }
    }
    numbers
}

/// Whether `cited` is one of `allowed`: equal within rounding to the precision it is written with
/// (two significant decimals at least), directly or as a percentage of a fraction.
fn matches_a_figure(cited: f64, allowed: &[f64]) -> bool {
    allowed.iter().any(|&value| {
        [value, value * 100.0].into_iter().any(|candidate| {
            let tolerance = (candidate.abs() * 0.005).max(0.051);
            (cited - candidate).abs() <= tolerance || (cited.abs() - candidate.abs()).abs() <= tolerance
        })
    })
}

/// The numbers of `summary` that are none of `allowed` (empty: the summary may be used). Small
/// integers up to 12 (counts like "three facilities", "12 months") and years 1900–2100 are allowed.
pub fn uncited_numbers(summary: &str, allowed: &[f64]) -> Vec<f64> {
    cited_numbers(summary)
        .into_iter()
        .filter(|n| {
            let small_count = n.fract() == 0.0 && (0.0..=12.0).contains(n);
            let year = n.fract() == 0.0 && (1900.0..=2100.0).contains(n);
            !(small_count || year || matches_a_figure(*n, allowed))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_as_written() {
        assert_eq!(
            cited_numbers("Debt is 0.88x EBITDA; revenue 383,285,000,000; return -6.9%."),
            [0.88, 383_285_000_000.0, -6.9]
        );
        assert_eq!(cited_numbers("no figures here"), Vec::<f64>::new());
        assert_eq!(cited_numbers("B-2 grade, 1.5."), [2.0, 1.5]);
    }

    #[test]
    fn figures_may_be_rounded_or_given_as_percentages_but_not_invented() {
        let allowed = [0.8812, 29.0641, 0.069_31, 383_285_000_000.0];
        assert!(
            uncited_numbers("Leverage 0.88x, coverage 29.1x, return 6.9%, revenue 383,285,000,000.", &allowed)
                .is_empty()
        );
        assert_eq!(uncited_numbers("Leverage 0.88x and a margin of 45.2%.", &allowed), [45.2]);
        assert!(uncited_numbers("Fiscal 2023, three facilities, 12 months.", &allowed).is_empty());
    }
}
