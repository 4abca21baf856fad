//! When a study was stopped: from each `stop` deviation until the `resume`
//! that took it up again, if one did.

use std::collections::BTreeSet;

use crate::model::{Deviation, DeviationKind};
use crate::time::{self, UnixMillis};

/// One stop, and the resume that ended it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Pause<'d> {
    /// The `stop` deviation.
    pub stop: &'d Deviation,
    /// When it was logged.
    pub at: UnixMillis,
    /// The `resume` that took the study up again, and when it was logged.
    pub resumed: Option<(&'d Deviation, UnixMillis)>,
}

impl Pause<'_> {
    /// What a run that started during the pause is held to.
    pub fn describe(&self) -> String {
        let stopped = format!(
            "{} stopped the study at {}",
            self.stop.id, self.stop.logged_at
        );
        match self.resumed {
            Some((d, _)) => format!("{stopped}; {} resumed it at {}", d.id, d.logged_at),
            None => stopped,
        }
    }
}

/// A study's pauses, in the order logged.
#[derive(Debug, Clone, Default)]
pub(super) struct Pauses<'d> {
    spans: Vec<Pause<'d>>,
    /// Resumes that take up no stopped study: logged before any stop, or
    /// after another resume had already taken the study up.
    pub stray: BTreeSet<&'d str>,
}

impl<'d> Pauses<'d> {
    /// The pauses of the deviations `listed` (those whose `logged_at` is
    /// no timestamp fail their own receipt and are left out here). A stop
    /// logged while the study was stopped changes nothing.
    pub fn of(listed: &'d [Deviation]) -> Pauses<'d> {
        let mut events: Vec<(UnixMillis, &Deviation)> = listed
            .iter()
            .filter(|d| matches!(d.kind, DeviationKind::Stop | DeviationKind::Resume))
            .filter_map(|d| time::parse(&d.logged_at).ok().map(|t| (t, d)))
            .collect();
        // Stable: deviations logged at one instant keep the file's order.
        events.sort_by_key(|(t, _)| *t);
        let mut out = Pauses::default();
        for (at, d) in events {
            let open = out.spans.last_mut().filter(|p| p.resumed.is_none());
            match (d.kind, open) {
                (DeviationKind::Stop, None) => out.spans.push(Pause {
                    stop: d,
                    at,
                    resumed: None,
                }),
                (DeviationKind::Resume, Some(p)) => p.resumed = Some((d, at)),
                (DeviationKind::Resume, None) => {
                    out.stray.insert(d.id.as_str());
                }
                _ => {}
            }
        }
        out
    }

    /// The pause a run that started at `started` started in: after a stop
    /// and not after the resume that ended it.
    pub fn during(&self, started: UnixMillis) -> Option<&Pause<'d>> {
        self.spans
            .iter()
            .find(|p| started > p.at && p.resumed.is_none_or(|(_, r)| started <= r))
    }

    /// The stop the study ended on: the last, when no resume followed it.
    pub fn last_stop(&self) -> Option<&Pause<'d>> {
        self.spans.last().filter(|p| p.resumed.is_none())
    }

    /// The pauses the study was taken up again after, in order.
    pub fn resumed(&self) -> impl Iterator<Item = &Pause<'d>> {
        self.spans.iter().filter(|p| p.resumed.is_some())
    }
}
