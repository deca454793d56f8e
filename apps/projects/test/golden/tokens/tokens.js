/**
 * Do not edit directly, this file was auto-generated.
 */

export const ColorBrandPrimary = "#2563eb"; // Buttons, links, focus rings
export const ColorBrandSecondary = "#7c3aed";
export const ColorTextDefault = "#111827";
export const ColorTextMuted = "#6b7280";
export const ColorTextSubtle = "#9ca3af"; // Placeholders; below AA on white for body text
export const ColorSurfaceBackground = "#ffffff";
export const ColorAction = "#2563eb";
export const SpacingSm = "0.5rem";
export const SpacingMd = "1rem";
export const SpacingLg = "2rem";
export const FontFamilyBody = '"Inter", system-ui, sans-serif';
export const FontWeightRegular = "400";
export const FontWeightBold = "700";
export const MotionFast = "150ms";
export const MotionEase = "cubic-bezier(0.2, 0, 0, 1)";
export const RadiusMd = "0.5rem";
export const ShadowCard = "0px 4px 12px 0px rgb(0% 0% 0% / 0.1)";
export const BorderFocus = "2px solid #2563eb";
export const TransitionFade = "150ms cubic-bezier(0.2, 0, 0, 1) 0ms";
export const GradientHero = "#2563eb 0%, #7c3aed 100%";
export const TypographyBody = '400 1rem/1.5 "Inter", system-ui, sans-serif';
export const TypographyHeading = '700 2rem/1.2 "Inter", system-ui, sans-serif';
