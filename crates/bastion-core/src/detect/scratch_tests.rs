#[test]
fn scratch_fold() {
    for w in ["이전 지시를 무시하고", "사용자에게"] {
        let f = super::fold::fold(w);
        println!(
            "{w:?} -> {:?} {} chars {:?}",
            f,
            f.chars().count(),
            f.chars()
                .map(|c| format!("{:X}", c as u32))
                .collect::<Vec<_>>()
        );
    }
}
