/**
 * The port models NIC and switch share (src/port/): serialisation at line rate in fractional ns,
 * the late-timer catch-up rule, and 802.1Qbb pause reception (quanta of 512 bit times, refresh,
 * XON, exempt classes) and the outbox of XOFF/XON decisions.
 */
import { describe, expect, it } from 'vitest';
import { PfcOutbox, PfcPause, pfcPauseQuanta, pfcRefreshNs } from '../../src/port/pfc.js';
import { TxPort } from '../../src/port/tx-port.js';
import type { Packet } from '../../src/wire/packet.js';
import { createPacket } from '../../src/wire/packet-factory.js';
import { G, makeWorld } from '../switch/harness.js';

function frame(sizeBytes: number): Packet {
  const p = createPacket();
  p.sizeBytes = sizeBytes;
  return p;
}

/** A port that sends back to back from a list of frames and records when each one ends. */
function backToBack(rateBps: number, sizes: number[]) {
  const w = makeWorld();
  const port = new TxPort(w.env, rateBps);
  const ends: { tNs: number; exactNs: number; pkt: Packet }[] = [];
  const pending = sizes.map(frame);
  port.onTxDone = () => {
    const exactNs = port.txEndExactNs;
    ends.push({ tNs: w.sched.now(), exactNs, pkt: port.finish() });
    const next = pending.shift();
    if (next !== undefined) port.begin(next, port.nextStartAfterTx(w.sched.now()));
  };
  port.begin(pending.shift()!, 0);
  w.sched.run(1e9);
  return ends;
}

describe('TxPort', () => {
  it('serialises at line rate and hands each frame over at the next whole ns', () => {
    // 1 000 B at 3 Gbit/s: 2 666.67 ns each; back-to-back frames keep the exact rate.
    const ends = backToBack(3 * G, [1_000, 1_000, 1_000]);
    const serNs = (1_000 * 8e9) / (3 * G);
    expect(ends.map((e) => e.exactNs)).toEqual(
      [serNs, 2 * serNs, 3 * serNs].map((x) => expect.closeTo(x, 6)),
    );
    expect(ends.map((e) => e.tNs)).toEqual([2667, 5334, 8000]);
  });

  it('starts the next frame at the exact end when the timer is on time', () => {
    const w = makeWorld();
    const port = new TxPort(w.env, 100 * G);
    port.begin(frame(1_001), 0); // 80.08 ns
    expect(port.busy).toBe(true);
    expect(port.nextStartAfterTx(81)).toBeCloseTo(80.08, 9);
  });

  it('catches up after a late timer: from the exact end if work was waiting by then, else from the first arrival', () => {
    const w = makeWorld();
    const port = new TxPort(w.env, 100 * G);
    port.begin(frame(1_000), 0); // ends at 80 ns
    port.noteArrival(300);
    port.noteArrival(400); // only the first late arrival counts
    expect(port.nextStartAfterTx(1_000)).toBe(300);
    port.begin(frame(1_000), 300); // ends at 380
    port.noteArrival(350); // arrived while the frame was on the wire
    port.noteArrival(500);
    expect(port.nextStartAfterTx(1_000)).toBe(380);
    port.begin(frame(1_000), 380); // ends at 460, with work queued behind it
    port.workWaiting = true;
    port.noteArrival(600);
    expect(port.nextStartAfterTx(1_000)).toBe(460);
    port.begin(frame(1_000), 460); // ends at 540; nothing arrived
    expect(port.nextStartAfterTx(1_000)).toBe(540);
    port.finish();
    port.noteArrival(2_000); // idle: an arrival starts a frame itself
    expect(port.lateArrivalNs).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('PfcPause', () => {
  function pauseRig(exemptMask = 0) {
    const w = makeWorld();
    const pause = new PfcPause(w.env, 100 * G, exemptMask);
    const resumes: number[] = [];
    pause.onResume = () => resumes.push(w.sched.now());
    const body = (n: number, quanta: number) => {
      const q = [0, 0, 0, 0, 0, 0, 0, 0];
      q[n] = quanta;
      return { classEnable: 1 << n, quanta: q };
    };
    return { w, pause, resumes, body };
  }

  it('pauses for quanta × 512 bit times, rounded up to whole ns', () => {
    const { w, pause, resumes, body } = pauseRig();
    w.sched.setTimer(1_000, () => pause.receive(body(3, 65_535), w.sched.now()));
    w.sched.run(2_000);
    expect(pause.paused(3)).toBe(true);
    expect(pause.paused(2)).toBe(false);
    w.sched.run(1e9);
    expect(resumes).toEqual([1_000 + Math.ceil(65_535 * 5.12)]); // 335 539.2 ns
    expect(pause.paused(3)).toBe(false);
    expect(pause.pausedNs(w.sched.now())).toBe(335_540);
    expect(pause.pauseRx).toBe(1);
  });

  it('lets a refresh replace the remaining time and XON resume at once', () => {
    const { w, pause, resumes, body } = pauseRig();
    w.sched.setTimer(0, () => pause.receive(body(3, 1_000), 0)); // 5 120 ns
    w.sched.setTimer(4_000, () => pause.receive(body(3, 1_000), 4_000)); // until 9 120
    w.sched.run(1e9);
    expect(resumes).toEqual([9_120]);
    w.sched.setTimer(20_000, () => pause.receive(body(3, 1_000), 20_000));
    w.sched.setTimer(21_000, () => pause.receive(body(3, 0), 21_000));
    w.sched.run(1e9);
    expect(resumes).toEqual([9_120]); // XON lifts the pause; the caller restarts its port
    expect(pause.paused(3)).toBe(false);
    expect(pause.pausedNs(30_000)).toBe(9_120 + 1_000);
    expect([pause.pauseRx, pause.resumeRx]).toEqual([3, 1]);
  });

  it('never pauses an exempt class, but counts the frame', () => {
    const { w, pause, body } = pauseRig(1 << 6);
    pause.receive(body(6, 65_535), 0);
    expect(pause.mask).toBe(0);
    expect(pause.pauseRx).toBe(1);
    w.sched.run(1e9);
    expect(pause.pausedNs(w.sched.now())).toBe(0);
  });
});

describe('PfcOutbox and XOFF timing', () => {
  it('merges waiting decisions into one frame and counts XOFF and XON frames', () => {
    const out = new PfcOutbox();
    out.queue(3, 65_535);
    out.queue(5, 100);
    out.queue(5, 0); // a later decision replaces an unsent one
    expect(out.take()).toEqual({ classEnable: (1 << 3) | (1 << 5), quanta: [0, 0, 0, 65_535, 0, 0, 0, 0] });
    expect(out.pendingMask).toBe(0);
    out.queue(3, 0);
    expect(out.take().quanta[3]).toBe(0);
    expect([out.pauseTx, out.resumeTx]).toEqual([1, 1]);
  });

  it('clamps the pause time and refreshes at half of it', () => {
    expect(pfcPauseQuanta(undefined)).toBe(65_535);
    expect(pfcPauseQuanta(0)).toBe(1);
    expect(pfcPauseQuanta(1e9)).toBe(65_535);
    expect(pfcRefreshNs(65_535, 100 * G)).toBe(167_769); // 168 µs at 100G (docs/switch.md)
    expect(pfcRefreshNs(1, 400 * G)).toBe(1);
  });
});
