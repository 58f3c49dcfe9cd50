/**
 * Light and dark: the system's choice unless the user picks one here (kept in local storage; it is a
 * preference, not a secret).
 */
import { useEffect, useState } from "preact/hooks";

type Theme = "system" | "light" | "dark";
const KEY = "meshplane.theme";
const NEXT: Record<Theme, Theme> = { system: "light", light: "dark", dark: "system" };

function apply(theme: Theme): void {
  if (theme === "system") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

export function ThemeToggle() {
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem(KEY) as Theme | null) ?? "system");
  useEffect(() => {
    apply(theme);
    if (theme === "system") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, theme);
  }, [theme]);
  return (
    <button type="button" class="link" onClick={() => setTheme(NEXT[theme])} aria-label={`Colour theme: ${theme}; switch to ${NEXT[theme]}`}>
      Theme: {theme}
    </button>
  );
}
