/** Budget rows hold amounts as integer billionths (nano-units); the conversions live with the money formatting. */
export { fromNanos, toNanos } from "../shared/money.ts";
