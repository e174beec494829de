// Files imported `with { type: "text" }` (Bun and Deno embed them in the executable).
declare module "*.css" {
  const text: string;
  export default text;
}
declare module "*.min.js" {
  const text: string;
  export default text;
}
// The dashboard's own scripts: its shell, its shared modules and one module per view.
declare module "*/dashboard.js" {
  const text: string;
  export default text;
}
declare module "*/dashboard-api.js" {
  const text: string;
  export default text;
}
declare module "*/dashboard-dom.js" {
  const text: string;
  export default text;
}
declare module "*/dashboard-format.js" {
  const text: string;
  export default text;
}
declare module "*/dashboard-section.js" {
  const text: string;
  export default text;
}
declare module "*-view.js" {
  const text: string;
  export default text;
}
