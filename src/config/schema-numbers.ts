import { z } from "zod";

/** Non-negative finite amount (money or tokens). */
export const amount = z.number().finite().nonnegative();
/** A count or duration that must be at least 1. */
export const positiveInt = z.number().int().positive();
/** A duration in ms that may be 0. */
export const durationMs = z.number().int().nonnegative();
