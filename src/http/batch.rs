//! A connection's waiting frames as one: what a room queued for a connection by the time it
//! writes goes out as a single WebSocket frame holding a JSON array of the messages.

use crate::world::protocol::Frame;

/// Messages and bytes one batched frame holds at most (64 KiB: what many clients take in a
/// frame by default); what is left goes in the next.
const BATCH_MESSAGES: usize = 64;
const BATCH_BYTES: usize = 64 * 1024;

/// `first` and the frames `next` has waiting, as one frame, with how many messages it holds:
/// `first` itself when nothing waits, else a JSON array of them all, oldest first, up to
/// `BATCH_MESSAGES` messages and `BATCH_BYTES` (a message alone may be larger). A frame taken
/// that would not fit is handed back, to go first in the next.
pub(super) fn batch(
    first: Frame,
    mut next: impl FnMut() -> Option<Frame>,
) -> (Frame, usize, Option<Frame>) {
    let Some(second) = next() else {
        return (first, 1, None);
    };
    if first.len() + second.len() + 3 > BATCH_BYTES {
        return (first, 1, Some(second));
    }
    let mut batch = String::with_capacity(2 * (first.len() + second.len()) + 2);
    batch.push('[');
    batch.push_str(&first);
    batch.push(',');
    batch.push_str(&second);
    let mut count = 2;
    let mut carry = None;
    while count < BATCH_MESSAGES {
        let Some(more) = next() else { break };
        if batch.len() + more.len() + 2 > BATCH_BYTES {
            carry = Some(more);
            break;
        }
        batch.push(',');
        batch.push_str(&more);
        count += 1;
    }
    batch.push(']');
    (Frame::from(batch), count, carry)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(frames: &[&str]) -> impl FnMut() -> Option<Frame> {
        let mut frames: std::collections::VecDeque<Frame> =
            frames.iter().map(|f| Frame::from(f.to_string())).collect();
        move || frames.pop_front()
    }

    #[test]
    fn a_frame_with_nothing_behind_it_goes_alone_and_uncopied() {
        let first = Frame::from(r#"{"type":"pong"}"#.to_owned());
        let (frame, count, carry) = batch(first.clone(), waiting(&[]));
        assert_eq!((count, carry), (1, None));
        assert_eq!(frame.as_bytes().as_ptr(), first.as_bytes().as_ptr());
    }

    #[test]
    fn frames_waiting_go_out_as_one_json_array_in_order() {
        let (frame, count, carry) = batch(
            Frame::from(r#"{"n":1}"#.to_owned()),
            waiting(&[r#"{"n":2}"#, r#"{"n":3}"#]),
        );
        assert_eq!((count, carry), (3, None));
        let value: serde_json::Value = serde_json::from_str(&frame).unwrap();
        assert_eq!(value, serde_json::json!([{"n": 1}, {"n": 2}, {"n": 3}]));
    }

    #[test]
    fn a_batch_stops_at_its_count_and_its_size_and_leaves_the_rest_waiting() {
        let small = vec![r#"{"n":0}"#; 100];
        let mut next = waiting(&small);
        let (_, count, carry) = batch(next().unwrap(), &mut next);
        assert_eq!((count, carry), (BATCH_MESSAGES, None));
        let (_, count, _) = batch(next().unwrap(), &mut next);
        assert_eq!(count, 100 - BATCH_MESSAGES);
        // 20 KiB each: three fit in 64 KiB, the fourth is handed back, whole, for the next.
        let big = format!(r#"{{"text":"{}"}}"#, "x".repeat(20 * 1024));
        let mut next = waiting(&[&big, &big, &big, &big, &big]);
        let (frame, count, carry) = batch(next().unwrap(), &mut next);
        assert_eq!(count, 3);
        assert!(frame.len() <= BATCH_BYTES);
        assert_eq!(carry.as_deref(), Some(big.as_str()));
        assert!(next().is_some(), "the fifth is still waiting");
        // A message larger than a batch goes alone.
        let huge = "y".repeat(BATCH_BYTES);
        let (frame, count, carry) = batch(Frame::from(big.clone()), waiting(&[&huge]));
        assert_eq!((frame.len(), count), (big.len(), 1));
        assert_eq!(carry.as_deref(), Some(huge.as_str()));
    }
}
