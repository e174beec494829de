import { seeded } from "./pii-samples.ts";

/**
 * Ordinary text, code and numbers with no personal data and no credential in them: what the
 * detectors' false positives are counted on (docs/guardrails.md states the counts). Prose in
 * several EU languages, code and configuration in common languages, and generated numbers of
 * every everyday shape (seeded: the same on every run).
 */

export const PROSE = `
The quarterly review is on 14 March 2025 at 10:30 in room 4.12. Please bring the 2024 figures:
revenue grew 12.5% to EUR 1,234,567.89 while costs fell by 3.2 million. We shipped 48,213 parcels
from 3 warehouses; the average delivery took 2.4 days. Order 20240314-0042 was delayed by 6 hours.
Version 4.2.1 of the app was released on 2025-02-01, and 4.3.0 follows in April. See section 7.3.2.
The meeting lasted from 09:00 to 17:45 with a break of 45 minutes. Temperature: 21.5 °C, humidity 48%.
Our office at Keizersgracht 123 is open Monday to Friday; parking costs 4.50 per hour, 25 per day.
Flight KL 1234 leaves at 07:55 from gate D 7; the train ICE 1557 arrives at 14:02 on platform 11.
The population of the region is 1.2 million; 38 per cent live in cities over 100,000 inhabitants.
In 1989 the wall fell; in 2002 the euro notes arrived; in 2004 ten states joined the union.

De kwartaalcijfers worden op 14 maart gepresenteerd. De omzet steeg met 12,5 procent tot 1.234.567 euro.
We hebben 48.213 pakketten verzonden vanuit drie magazijnen. Bestelling 4471 is vertraagd.
Die Sitzung beginnt um 9:30 Uhr in Raum 2.14. Der Umsatz lag bei 2,3 Millionen Euro (Vorjahr: 2,1).
Bitte lesen Sie Kapitel 3.2 bis 3.7 vor dem Treffen; die Präsentation hat 42 Folien.
La réunion aura lieu le 3 avril à 14 h 30, salle 12. Le chiffre d'affaires atteint 1 234 567 euros.
Nous avons livré 48 213 colis depuis 3 entrepôts ; le délai moyen était de 2,4 jours.
La reunión será el 5 de mayo a las 11:00 en la sala 3. Las ventas crecieron un 7,5 % hasta 2,3 millones.
La riunione si terrà il 6 giugno alle 15:00 nella sala 5. Il fatturato è salito a 1,2 milioni di euro.
Spotkanie odbędzie się 7 lipca o godzinie 10:00 w sali 8. Przychody wzrosły o 4,5 procent.
Recipe: mix 250 g flour, 125 ml milk and 2 eggs; bake 35 minutes at 180 degrees. Serves 4 to 6.
The match ended 3-2 after extra time; attendance was 45,612 and the season ticket costs 399.
Chapter 12, verse 4; page 117 of 480; ISBN-13 format books carry a 13-digit number on the back.
Coordinates of the meeting point: 52.3702, 4.8952. Altitude 12 m. Distance 4.7 km, 58 minutes walk.
Hello team, thanks for the update. I will review the pull request tomorrow morning and reply then.
Please contact the help desk through the portal rather than by mail; tickets are answered in a day.
`;

export const CODE = `
import { createServer } from "node:http";
const PORT = Number(process.env.PORT ?? 8080);
export function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
const matrix = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
const color = "#1e293b"; const accent = "#ff6600"; const shadow = "rgba(0, 0, 0, 0.25)";
const id = "3f2b8c1e-9a4d-4e7b-8f21-6c5d0a9e1b34";
const sha = "9c56cc51b374c3ba189210d5b6d4bf57790d351c96c47c02190ecf1e430635ab";
const commit = "a1b2c3d4e5f6";
const pattern = /^(\\d{3})-(\\d{4})$/;
const version = "2.14.7"; const range = "^1.2.3 || ~4.5.6";
@Component({ selector: "app-root", templateUrl: "./app.component.html" })
export class AppComponent { title = "dashboard"; }
npm install @scope/package@1.2.3 lodash@4.17.21 typescript@5.4.5
std::vector<int> values; std::map<std::string, int> counts; auto x = a::b::c();
let path = std::path::Path::new("/tmp/data.json");
SELECT id, name, created_at FROM orders WHERE total > 100 AND created_at >= '2024-01-01' LIMIT 50;
UPDATE stock SET quantity = quantity - 3 WHERE sku = 'SKU-004211' AND warehouse_id = 12;
def fibonacci(n: int) -> int:
    return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)
print(f"{3.14159:.2f} {2**32} {1e-9} {0x7fffffff} {0o755} {0b1010}")
{"name": "renio", "version": "0.1.0", "port": 8080, "timeoutMs": 120000, "retries": 3, "ratio": 0.25}
services:
  web:
    image: nginx:1.25.3
    ports: ["8080:80", "8443:443"]
    environment:
      - WORKERS=4
      - TIMEOUT=30
FROM node:20.11.1-alpine
RUN apt-get update && apt-get install -y curl=7.88.1-10+deb12u5
for i in $(seq 1 10); do echo "run $i"; sleep 0.5; done
chmod 0644 config.yaml && tar -czf backup-2024-03-14.tar.gz ./data
.grid { display: grid; grid-template-columns: repeat(12, 1fr); gap: 16px; margin: 0 auto; max-width: 1280px; }
@media (max-width: 390px) { .grid { grid-template-columns: 1fr; } }
const base64 = "SGVsbG8sIHdvcmxkISBUaGlzIGlzIGp1c3QgYSB0ZXN0IHN0cmluZy4=";
const ts = 1710412800; const ms = 1710412800123; const big = 9007199254740991n;
const ratios = [0.125, 0.25, 0.5, 1.0, 2.0]; const timeout = 30_000; const maxBytes = 10_485_760;
if (status >= 500 && status !== 501) retry(attempt + 1, backoff * 2);
while (queue.length > 0) { const job = queue.shift()!; await job.run(); }
error: expected 3 arguments, got 2 (at line 42, column 17)
HTTP/1.1 200 OK\\r\\nContent-Length: 1234\\r\\nCache-Control: max-age=3600\\r\\n
at Object.<anonymous> (/srv/app/dist/index.js:128:33)
time=2024-03-14T10:30:00.123Z level=info msg="request done" duration_ms=12.7 status=200 bytes=5321
sk-learn and scikit-learn are python packages; key = "not-a-secret"; token = "dev-token";
-----BEGIN CERTIFICATE-----
MIIBszCCAVmgAwIBAgIUQZQ7
-----END CERTIFICATE-----
`;

/** Generated everyday numbers: 1,000 integers of each length from 1 to 20 digits, then 500 of each other shape (amounts, dates, times, ids, hashes, versions). */
export function ordinaryNumbers(seed = 7): string[] {
  const r = seeded(seed);
  const int = (n: number) => Math.floor(r() * n);
  const digits = (n: number) => String(1 + int(9)) + Array.from({ length: n - 1 }, () => String(int(10))).join("");
  const hex = (n: number) => Array.from({ length: n }, () => "0123456789abcdef"[int(16)]).join("");
  const pad = (n: number, w: number) => String(n).padStart(w, "0");
  const shapes: Array<() => string> = [
    () => `${digits(1 + int(6))}.${pad(int(100), 2)}`,
    () => `€ ${int(1000)}.${pad(int(1000), 3)},${pad(int(100), 2)}`,
    () => `$${int(1000)},${pad(int(1000), 3)}.${pad(int(100), 2)}`,
    () => `${2000 + int(30)}-${pad(1 + int(12), 2)}-${pad(1 + int(28), 2)}`,
    () => `${pad(1 + int(28), 2)}.${pad(1 + int(12), 2)}.${2000 + int(30)} ${pad(int(24), 2)}:${pad(int(60), 2)}`,
    () => `${pad(1 + int(28), 2)}/${pad(1 + int(12), 2)}/${2000 + int(30)}`,
    () => `${1_600_000_000 + int(200_000_000)}`,
    () => `${1_600_000_000_000 + int(200_000_000_000)}`,
    () => `${hex(8)}-${hex(4)}-4${hex(3)}-${hex(4)}-${hex(12)}`,
    () => hex(64),
    () => hex(40),
    () => `${int(20)}.${int(50)}.${int(100)}`,
    () => `INV-${2000 + int(30)}-${pad(int(1_000_000), 6)}`,
    () => `${1000 + int(9000)} ${"ABCDEFGHJKLMNPRSTVWXZ"[int(21)]}${"ABCDEFGHJKLMNPRSTVWXZ"[int(21)]}`,
    () => `${int(100)}.${pad(int(10000), 4)}%`,
    () => `${int(90)}.${pad(int(1_000_000), 6)}, ${int(180)}.${pad(int(1_000_000), 6)}`,
    () => `${digits(3)} ${digits(3)}`,
    () => `${digits(2)}-${digits(3)}-${digits(4)}`,
    () => `#${pad(int(100_000), 5)}`,
    // Zero-padded ids: one leading zero and nine more digits is also how Dutch, French or German numbers are written.
    () => pad(int(10 ** (1 + int(10))), 10),
  ];
  const integers = Array.from({ length: 20_000 }, (_, i) => digits(1 + Math.floor(i / 1000)));
  return [...integers, ...Array.from({ length: 500 * shapes.length }, (_, i) => shapes[i % shapes.length]!())];
}
