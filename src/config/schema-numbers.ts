import { z } from "zod";

/** Non-negative finite amount (money or tokens). */
export const amount = z.number().finite().nonnegative();
/** A count or duration that must be at least 1. */
export const positiveInt = z.number().int().positive();
