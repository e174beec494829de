import { execFileSync } from "node:child_process";
import { join } from "node:path";

/** A throwaway certificate for 127.0.0.1 and its key, as PEM files in `dir`. */
export interface CertFiles {
  readonly certFile: string;
  readonly keyFile: string;
}

/** Makes a self-signed P-256 certificate for 127.0.0.1, valid one day, with the system's `openssl`; `name` tells several apart in one dir. */
export function selfSignedCert(dir: string, name = "server"): CertFiles {
  const certFile = join(dir, `${name}-cert.pem`);
  const keyFile = join(dir, `${name}-key.pem`);
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", keyFile, "-out", certFile, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
  return { certFile, keyFile };
}
