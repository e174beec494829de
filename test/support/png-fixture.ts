/** A 1×1 red PNG, as the data URL callers send. */
export const PNG_DATA_URL = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
/** Its bytes in base64 (the data URL's payload). */
export const PNG_BASE64 = PNG_DATA_URL.slice(PNG_DATA_URL.indexOf(",") + 1);
