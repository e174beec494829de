import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { attemptEnded, attemptStarted, circuitState, createTargetHealthBook, usable, type AttemptVerdict, type TargetHealth } from "./target-health.ts";

const SETTINGS = { failures: 3, windowMs: 10_000, cooldownMs: 30_000 };
const T0 = Date.UTC(2026, 11, 4, 12, 0, 0);

function attempt(health: TargetHealth, at: number, verdict: AttemptVerdict): void {
  attemptEnded(health, attemptStarted(health, at), verdict, at, SETTINGS, verdict === "failed" ? "upstream_503" : null);
}

describe("cooldowns (circuit breaking per target)", () => {
  test("N failures within the window open the circuit for the cool-down; it is then due one probe", () => {
    const health = createTargetHealthBook().of("mock-a", "gpt");
    attempt(health, T0, "failed");
    attempt(health, T0 + 1000, "failed");
    assert.equal(circuitState(health, T0 + 1000), "closed");
    attempt(health, T0 + 2000, "failed");
    assert.equal(circuitState(health, T0 + 2000), "open");
    assert.equal(usable(health, T0 + 2000 + 29_999), false);
    assert.equal(health.lastError, "upstream_503");
    assert.equal(circuitState(health, T0 + 32_000), "half-open");
    assert.equal(usable(health, T0 + 32_000), true);
  });

  test("failures spread wider than the window, or broken by an answer, never open it", () => {
    const health = createTargetHealthBook().of("mock-a", "gpt");
    for (let i = 0; i < 6; i++) attempt(health, T0 + i * 6000, "failed");
    assert.equal(circuitState(health, T0 + 36_000), "closed");
    const other = createTargetHealthBook().of("mock-b", "gpt");
    attempt(other, T0, "failed");
    attempt(other, T0 + 1, "failed");
    attempt(other, T0 + 2, "answered");
    attempt(other, T0 + 3, "failed");
    attempt(other, T0 + 4, "failed");
    assert.equal(circuitState(other, T0 + 4), "closed");
  });

  test("half-open: one probe at a time; its answer closes the circuit, its failure opens it again", () => {
    const health = createTargetHealthBook().of("mock-a", "gpt");
    for (let i = 0; i < 3; i++) attempt(health, T0, "failed");
    const due = T0 + SETTINGS.cooldownMs;
    const probe = attemptStarted(health, due);
    assert.equal(probe, true);
    assert.equal(usable(health, due), false, "nobody else while the probe is in flight");
    attemptEnded(health, probe, "failed", due, SETTINGS, "upstream_reset");
    assert.equal(circuitState(health, due + 1), "open");
    assert.equal(circuitState(health, due + SETTINGS.cooldownMs), "half-open");
    attempt(health, due + SETTINGS.cooldownMs, "answered");
    assert.equal(circuitState(health, due + SETTINGS.cooldownMs), "closed");
    assert.equal(health.inFlight, 0);
  });

  test("a probe that ends neither way (the client left) leaves the circuit due another probe", () => {
    const health = createTargetHealthBook().of("mock-a", "gpt");
    for (let i = 0; i < 3; i++) attempt(health, T0, "failed");
    const due = T0 + SETTINGS.cooldownMs;
    attempt(health, due, "neutral");
    assert.equal(circuitState(health, due), "half-open");
    assert.equal(usable(health, due), true);
  });

  test("one health per provider and upstream model, whichever model entry lists it", () => {
    const book = createTargetHealthBook();
    assert.equal(book.of("mock-a", "gpt"), book.of("mock-a", "gpt"));
    assert.notEqual(book.of("mock-a", "gpt"), book.of("mock-a", "claude"));
  });
});
