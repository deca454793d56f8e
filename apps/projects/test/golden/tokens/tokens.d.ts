/**
 * Do not edit directly, this file was auto-generated.
 */

/** Buttons, links, focus rings */
export const ColorBrandPrimary: string;
export const ColorBrandSecondary: string;
export const ColorTextDefault: string;
export const ColorTextMuted: string;
/** Placeholders; below AA on white for body text */
export const ColorTextSubtle: string;
export const ColorSurfaceBackground: string;
export const ColorAction: string;
export const SpacingSm: string;
export const SpacingMd: string;
export const SpacingLg: string;
export const FontFamilyBody: string;
export const FontWeightRegular: string;
export const FontWeightBold: string;
export const MotionFast: string;
export const MotionEase: string;
export const RadiusMd: string;
export const ShadowCard: string;
export const BorderFocus: string;
export const TransitionFade: string;
export const GradientHero: string;
export const TypographyBody: string;
export const TypographyHeading: string;
