/** Small inline SVG icons (no icon font, nothing remote). */
import type { ReactNode, SVGProps } from "react";

function Svg({ children, size = 14, ...rest }: SVGProps<SVGSVGElement> & { size?: number; children: ReactNode }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.6}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      {...rest}
    >
      {children}
    </svg>
  );
}

type P = { size?: number };

export const IconCheck = (p: P) => (
  <Svg {...p}>
    <path d="M3.5 8.5l3 3 6-7" />
  </Svg>
);
export const IconX = (p: P) => (
  <Svg {...p}>
    <path d="M4 4l8 8M12 4l-8 8" />
  </Svg>
);
export const IconChevron = (p: P) => (
  <Svg {...p}>
    <path d="M6 4l4 4-4 4" />
  </Svg>
);
export const IconClock = (p: P) => (
  <Svg {...p}>
    <circle cx="8" cy="8" r="5.5" />
    <path d="M8 5v3l2 1.5" />
  </Svg>
);
export const IconHand = (p: P) => (
  <Svg {...p}>
    <circle cx="8" cy="8" r="5.5" />
    <path d="M8 5v3.5M8 10.8v.2" />
  </Svg>
);
export const IconStop = (p: P) => (
  <Svg {...p}>
    <rect x="4.5" y="4.5" width="7" height="7" rx="1" />
  </Svg>
);
export const IconSlash = (p: P) => (
  <Svg {...p}>
    <circle cx="8" cy="8" r="5.5" />
    <path d="M4.2 11.8l7.6-7.6" />
  </Svg>
);
export const IconLimit = (p: P) => (
  <Svg {...p}>
    <path d="M3 12.5h10M5 12.5V6M8 12.5V3.5M11 12.5V8" />
  </Svg>
);
/** A gauge with its needle at the end: a budget. */
export const IconGauge = (p: P) => (
  <Svg {...p}>
    <path d="M2.5 11.5a5.5 5.5 0 0 1 11 0" />
    <path d="M8 11.5l3.2-3.4" />
  </Svg>
);
export const IconPause = (p: P) => (
  <Svg {...p}>
    <circle cx="8" cy="8" r="5.5" />
    <path d="M6.5 6v4M9.5 6v4" />
  </Svg>
);
export const IconGear = (p: P) => (
  <Svg {...p}>
    <circle cx="8" cy="8" r="2" />
    <path d="M8 1.8v1.6M8 12.6v1.6M1.8 8h1.6M12.6 8h1.6M3.6 3.6l1.1 1.1M11.3 11.3l1.1 1.1M3.6 12.4l1.1-1.1M11.3 4.7l1.1-1.1" />
  </Svg>
);
export const IconFolder = (p: P) => (
  <Svg {...p}>
    <path d="M2 4.5A1.5 1.5 0 013.5 3h2.8l1.4 1.5h4.8A1.5 1.5 0 0114 6v5.5a1.5 1.5 0 01-1.5 1.5h-9A1.5 1.5 0 012 11.5z" />
  </Svg>
);
export const IconSend = (p: P) => (
  <Svg {...p}>
    <path d="M2.5 8h10M8.5 4l4 4-4 4" />
  </Svg>
);
export const IconBranch = (p: P) => (
  <Svg {...p}>
    <circle cx="4.5" cy="3.5" r="1.5" />
    <circle cx="4.5" cy="12.5" r="1.5" />
    <circle cx="11.5" cy="6.5" r="1.5" />
    <path d="M4.5 5v6M11.5 8c0 2-2 2.5-5.5 3" />
  </Svg>
);
export const IconMessage = (p: P) => (
  <Svg {...p}>
    <path d="M2.5 3.5h11v7h-6l-3 2.5v-2.5h-2z" />
  </Svg>
);
export const IconTree = (p: P) => (
  <Svg {...p}>
    <rect x="6" y="1.8" width="4" height="3.4" rx="1" />
    <rect x="1.8" y="10.8" width="4" height="3.4" rx="1" />
    <rect x="10.2" y="10.8" width="4" height="3.4" rx="1" />
    <path d="M8 5.2v2.8M3.8 10.8V8h8.4v2.8" />
  </Svg>
);
export const IconAlert = (p: P) => (
  <Svg {...p}>
    <path d="M8 2l6.5 11.5h-13z" />
    <path d="M8 6.5v3M8 11.5v.2" />
  </Svg>
);
export const IconPlay = (p: P) => (
  <Svg {...p}>
    <path d="M5 3.5l7 4.5-7 4.5z" />
  </Svg>
);
export const IconPlus = (p: P) => (
  <Svg {...p}>
    <path d="M8 3v10M3 8h10" />
  </Svg>
);
export const IconInbox = (p: P) => (
  <Svg {...p}>
    <path d="M2 9l2-5.5h8L14 9v3.5H2z" />
    <path d="M2 9h3.5l1 1.5h3l1-1.5H14" />
  </Svg>
);
export const IconTool = (p: P) => (
  <Svg {...p}>
    <path d="M10.5 2.5a3 3 0 00-3.2 4L2.5 11.3l2.2 2.2 4.8-4.8a3 3 0 004-3.2l-1.8 1.8-2-.5-.5-2z" />
  </Svg>
);
export const IconArrowDown = (p: P) => (
  <Svg {...p}>
    <path d="M8 3v10M4 9l4 4 4-4" />
  </Svg>
);
export const IconHistory = (p: P) => (
  <Svg {...p}>
    <path d="M2.5 8a5.5 5.5 0 101.6-3.9" />
    <path d="M2.2 2.6v2.6h2.6" />
    <path d="M8 5.2V8l2 1.3" />
  </Svg>
);
export const IconSearch = (p: P) => (
  <Svg {...p}>
    <circle cx="7" cy="7" r="4.2" />
    <path d="M10.2 10.2l3.3 3.3" />
  </Svg>
);
export const IconDownload = (p: P) => (
  <Svg {...p}>
    <path d="M8 2.5v8M4.5 7.5L8 11l3.5-3.5M3 13.5h10" />
  </Svg>
);
export const IconResume = (p: P) => (
  <Svg {...p}>
    <path d="M12.5 8a4.5 4.5 0 11-1.3-3.2" />
    <path d="M11.6 2.3v2.8H8.8" />
    <path d="M7 6.3v3.4L9.6 8z" />
  </Svg>
);
export const IconArrowLeft = (p: P) => (
  <Svg {...p}>
    <path d="M13 8H3M7 4L3 8l4 4" />
  </Svg>
);
export const IconPlug = (p: P) => (
  <Svg {...p}>
    <path d="M6 2v3M10 2v3" />
    <path d="M4 5h8v2.5a4 4 0 01-8 0z" />
    <path d="M8 11.5V14" />
  </Svg>
);
export const IconShield = (p: P) => (
  <Svg {...p}>
    <path d="M8 1.8l5 1.9v4c0 3.1-2.1 5.4-5 6.5-2.9-1.1-5-3.4-5-6.5v-4z" />
    <path d="M5.8 8l1.6 1.6 2.8-3" />
  </Svg>
);
export const IconImport = (p: P) => (
  <Svg {...p}>
    <path d="M8 2.5v7.5M5 7l3 3 3-3M3 11.5v1.5h10v-1.5" />
  </Svg>
);
export const IconFilter = (p: P) => (
  <Svg {...p}>
    <path d="M2.5 3.5h11L9.5 8.5v4l-3 1v-5z" />
  </Svg>
);
