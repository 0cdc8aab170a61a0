//! An external agent's permission options: the ones the card (and `arbor acp`, and
//! `arbor run`'s prompt) offers, in the agent's own words with what each is in
//! Arbor's terms, and the one an answer picks to send back.

use agent_client_protocol::v1::schema as acp;
use arbor_protocol::ApprovalScope;

/// What an ACP permission option of `kind` is in Arbor's terms: approved or not, and how far
/// it reaches ("always" is that agent's rule: `agent`). None for a kind newer than this schema.
pub fn answer_of_kind(kind: &acp::PermissionOptionKind) -> Option<(bool, ApprovalScope)> {
    use acp::PermissionOptionKind as K;
    match kind {
        K::AllowOnce => Some((true, ApprovalScope::Once)),
        K::AllowAlways => Some((true, ApprovalScope::Agent)),
        K::RejectOnce => Some((false, ApprovalScope::Once)),
        K::RejectAlways => Some((false, ApprovalScope::Agent)),
        _ => None,
    }
}

/// The ACP option kind an Arbor answer is: any scope wider than `once` is "always".
pub fn kind_of_answer(approved: bool, scope: ApprovalScope) -> acp::PermissionOptionKind {
    use acp::PermissionOptionKind as K;
    match (approved, scope == ApprovalScope::Once) {
        (true, true) => K::AllowOnce,
        (true, false) => K::AllowAlways,
        (false, true) => K::RejectOnce,
        (false, false) => K::RejectAlways,
    }
}

/// The agent's options as the card offers them: its own words, each with the answer it
/// is in Arbor's terms (the one `choose` maps back to it). Of two options that answer the
/// same, the first is offered, as `choose` would pick it; a kind newer than this schema is left out.
pub(super) fn offered(options: &[acp::PermissionOption]) -> Vec<arbor_protocol::AgentOption> {
    let mut out: Vec<arbor_protocol::AgentOption> = Vec::new();
    for o in options {
        let Some((approved, scope)) = answer_of_kind(&o.kind) else { continue };
        if out.iter().any(|x| x.approved == approved && x.scope == scope) {
            continue;
        }
        let name = arbor_protocol::text::quote(o.name.trim(), MAX_OPTION);
        out.push(arbor_protocol::AgentOption { name, approved, scope });
    }
    out
}

/// An option's label kept: a button, not a paragraph.
const MAX_OPTION: usize = 80;

/// The agent's option for an answer: its kind when offered (a scoped answer is "always"),
/// else the same answer's other reach.
pub(super) fn choose(
    options: &[acp::PermissionOption],
    approved: bool,
    scope: ApprovalScope,
) -> acp::RequestPermissionResponse {
    let other = if scope == ApprovalScope::Once { ApprovalScope::Agent } else { ApprovalScope::Once };
    let wanted = [kind_of_answer(approved, scope), kind_of_answer(approved, other)];
    let chosen = wanted.iter().find_map(|k| options.iter().find(|o| o.kind == *k));
    match chosen {
        Some(o) => acp::RequestPermissionResponse::new(acp::RequestPermissionOutcome::Selected(
            acp::SelectedPermissionOutcome::new(o.option_id.clone()),
        )),
        // It offered no way to say this: the request is withdrawn rather than answered wrongly.
        None => acp::RequestPermissionResponse::new(acp::RequestPermissionOutcome::Cancelled),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbor_protocol::ApprovalScope;

    #[test]
    fn the_card_offers_the_agents_own_options_once_each_and_each_maps_back_to_itself() {
        use acp::PermissionOptionKind as K;
        let options = vec![
            acp::PermissionOption::new("always", "Always Allow", K::AllowAlways),
            acp::PermissionOption::new("allow", "Allow", K::AllowOnce),
            acp::PermissionOption::new("allow-2", "Allow this time too", K::AllowOnce),
            acp::PermissionOption::new("reject", &*"Reject ".repeat(40), K::RejectOnce),
        ];
        let shown = offered(&options);
        let said: Vec<(bool, ApprovalScope)> = shown.iter().map(|o| (o.approved, o.scope)).collect();
        assert_eq!(said, [(true, ApprovalScope::Agent), (true, ApprovalScope::Once), (false, ApprovalScope::Once)]);
        assert_eq!((shown[0].name.as_str(), shown[1].name.as_str()), ("Always Allow", "Allow"));
        assert!(shown[2].name.len() < 120, "a long label is cut: {}", shown[2].name);
        // Choosing an offered answer sends that very option back.
        let picked = |o: &arbor_protocol::AgentOption| match choose(&options, o.approved, o.scope).outcome {
            acp::RequestPermissionOutcome::Selected(s) => s.option_id.0.to_string(),
            _ => "cancelled".into(),
        };
        assert_eq!(shown.iter().map(picked).collect::<Vec<_>>(), ["always", "allow", "reject"]);
        // An answer it offered no way to give is withdrawn, not given as something else.
        let none = choose(&options[1..2], false, ApprovalScope::Once).outcome;
        assert!(matches!(none, acp::RequestPermissionOutcome::Cancelled));
    }
}
