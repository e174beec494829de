// Files imported `with { type: "text" }` (Bun and Deno embed them in the executable).
declare module "*.css" {
  const text: string;
  export default text;
}
declare module "*.min.js" {
  const text: string;
  export default text;
}
declare module "*/dashboard.js" {
  const text: string;
  export default text;
}
declare module "*/dashboard-spenders.js" {
  const text: string;
  export default text;
}
